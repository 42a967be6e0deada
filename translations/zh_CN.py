# Simplified Chinese for every string the app shows: source text → translation. Applied to the
# .ts file that lupdate extracts by tools/update_translations.py; kept beside the .ts so that a
# new string is translated here once and survives re-extraction.
ZH_CN = {
    '%1 B': '%1 B', '%1 KiB': '%1 KiB', '%1 MiB': '%1 MiB', '%1 GiB': '%1 GiB', '%1 TiB': '%1 TiB',
    '%1 µs': '%1 微秒', '%1 ms': '%1 毫秒', '%1 s': '%1 秒',
    'Nothing to export.': '没有可导出的内容。',
    'Cannot export to “%1”: unknown file type “%2” (use .png, .svg or .pdf).':
        '无法导出到“%1”：未知的文件类型“%2”（请使用 .png、.svg 或 .pdf）。',
    '(none)': '（无）',
    'Cannot export “%1”: the panel has no size.': '无法导出“%1”：面板没有尺寸。',
    'Cannot write “%1”: %2': '无法写入“%1”：%2',
    'Exported from InferLens': '由 InferLens 导出',
    'Cannot write “%1”: drawing the panel failed.': '无法写入“%1”：绘制面板失败。',
    'Ask something — Ctrl+Enter sends': '输入问题——Ctrl+Enter 发送',
    'Send': '发送', 'Stop': '停止', 'Regenerate': '重新生成', 'Edit last': '编辑上一条',
    'Clear': '清空', 'finished: %1': '已结束：%1', 'error: %1': '错误：%1', 'You': '你',
    'Model': '模型', 'no model is loaded': '尚未加载模型', 'InferLens': 'InferLens',
    '&File': '文件(&F)', 'Open GGUF &file…': '打开 GGUF 文件(&F)…',
    'Open model &directory…': '打开模型目录(&D)…', '&Export panel': '导出面板(&E)',
    '&Quit': '退出(&Q)', '&Help': '帮助(&H)', '&About InferLens': '关于 InferLens(&A)',
    'Model and run': '模型与运行', 'No model': '无模型', 'Pause': '暂停', 'Resume': '继续',
    'Step token': '单步（词元）', 'While paused: run until the next token is chosen':
        '暂停时：运行到选出下一个词元', 'Step layer': '单步（层）',
    'While paused: run one more layer': '暂停时：再运行一层', 'Export %1': '导出%1',
    'Images (*.png *.svg *.pdf)': '图像 (*.png *.svg *.pdf)', 'Export failed': '导出失败',
    'About InferLens': '关于 InferLens',
    '<h3>InferLens %1</h3><p>Runs a language model locally and shows, token by token, what happens '
    'inside: tokenization, attention, the KV cache, sampling.</p><p>Qt %2 (built with %3) · compute '
    'device: %4</p><p>MIT licence. The bundled model inferlens-nano is GPL-3.0-or-later (its training '
    'data).</p>':
        '<h3>InferLens %1</h3><p>在本地运行语言模型，并逐个词元展示其内部过程：分词、注意力、KV 缓存、'
        '采样。</p><p>Qt %2（编译时 %3）· 计算设备：%4</p><p>MIT 许可证。内置模型 inferlens-nano '
        '采用 GPL-3.0 或更高版本（源于其训练数据）。</p>',
    'Tokenization': '分词', 'Log colour scale': '对数色标', 'Layer': '层', 'Head': '头',
    'Attention': '注意力', 'Sampling': '采样', 'Sampling parameters': '采样参数',
    'KV cache': 'KV 缓存', 'Double loop': '双重循环',
    'Open a Hugging Face model directory': '打开 Hugging Face 模型目录',
    'Open a GGUF model': '打开 GGUF 模型',
    'GGUF models (*.gguf);;All files (*)': 'GGUF 模型 (*.gguf);;所有文件 (*)',
    'Loading %1…': '正在加载 %1…',
    '%1 · %2 · %3 parameters · %4 · context %5 · %6': '%1 · %2 · %3 参数 · %4 · 上下文 %5 · %6',
    'Model loaded on %1; chat template %2': '模型已加载到 %1；对话模板 %2',
    'not a conversation of this version': '不是此版本的对话文件',
    'a turn without a role or text': '有一轮对话缺少角色或文本',
    'The saved conversation could not be read (%1); it was kept as %2.':
        '无法读取已保存的对话（%1）；原文件已保留为 %2。',
    'The saved conversation could not be read (%1) nor moved aside; it stays at %2 and will not be '
    'overwritten until moved.':
        '无法读取已保存的对话（%1），也无法将其移开；它仍在 %2，移走之前不会被覆盖。',
    '%1 is not a readable conversation; it is left as it is': '%1 不是可读取的对话文件；保持原样',
    'Saved conversation': '已保存的对话',
    'The conversation is longer than the context of %1 tokens: the oldest %n round(s) are left out '
    'of the prompt.': '对话超出了 %1 个词元的上下文：最早的 %n 轮未放入提示。',
    'The conversation could not be saved: %1': '无法保存对话：%1',
    '&Device': '设备(&D)', 'CPU': 'CPU', 'No GPU: %1': '没有 GPU：%1',
    'Fused attention on the CPU (tiled, no score matrix)': 'CPU 上的融合注意力（分块计算，不生成分数矩阵）',
    'Reference attention on the CPU (every probability)': 'CPU 上的参考注意力（计算每个概率）',
    '%1; the model runs on the CPU': '%1；模型改在 CPU 上运行',
    'Run the model on cpu, cuda or cuda:N (default: the Device menu\'s last choice).':
        '在 cpu、cuda 或 cuda:N 上运行模型（默认：“设备”菜单上次的选择）。',
    'cannot load the model: %1': '无法加载模型：%1', 'Cannot open the model': '无法打开模型',
    '%1 tokens; longest UI stall %2 ms': '%1 个词元；界面最长停顿 %2 毫秒',
    'cannot write %1': '无法写入 %1',
    'Temperature': '温度', 'Top-k': 'Top-k', 'Top-p': 'Top-p', 'Min-p': 'Min-p',
    'Repetition penalty': '重复惩罚', 'Frequency penalty': '频率惩罚', 'Presence penalty': '存在惩罚',
    'Max new tokens': '最多新词元', 'Seed': '随机种子',
    'Layer %1, head %2: %3 tokens, %4 per cell (maximum)\nClick to show this head in the heat map':
        '第 %1 层，第 %2 头：%3 个词元，每格 %4（最大值）\n点击以在热图中显示此头',
    '1 token': '1 个词元', '%1 × %1 tokens': '%1 × %1 个词元', 'No attention heads yet': '尚无注意力头',
    'Layer %1 · %2 heads': '第 %1 层 · %2 个头', 'head %1': '头 %1',
    '%1 (%2) → %3 (%4): masked (a future token)': '%1 (%2) → %3 (%4)：已屏蔽（未来的词元）',
    '%1 (%2) → %3 (%4): %5': '%1 (%2) → %3 (%4)：%5', 'No attention weights yet': '尚无注意力权重',
    'Layer %1 · head %2 · %3 queries × %4 keys · %5': '第 %1 层 · 第 %2 头 · %3 个查询 × %4 个键 · %5',
    'log scale': '对数刻度', 'linear scale': '线性刻度', 'value': '数值', 'L%1': '层%1',
    'Layer %1, head %2: %3 %4': '第 %1 层，第 %2 头：%3 %4', 'not yet known': '尚未知晓',
    'No attention summary yet': '尚无注意力概览',
    '%1 per head · %2 layers × %3 heads': '每头%1 · %2 层 × %3 头',
    'Time to first token %1 · decode %2 · %3 steps × %4 layers':
        '首词元时间 %1 · 解码 %2 · %3 步 × %4 层',
    '–': '–', '%1 tokens/s': '%1 词元/秒', '– tokens/s': '– 词元/秒', 'layer %1': '第 %1 层',
    'prefill, %n token(s)': '预填充，%n 个词元', 'decode, %n token(s)': '解码，%n 个词元',
    'not run yet': '尚未运行', 'Step %1 (%2)\nlayer %3: %4\nwhole step: %5':
        '第 %1 步（%2）\n第 %3 层：%4\n整步：%5',
    'No steps yet': '尚无步骤', 'prefill': '预填充', 'decode': '解码',
    'steps (outer loop) →   layers (inner loop) ↓': '步（外层循环）→   层（内层循环）↓',
    'allocated': '已分配', 'held': '已占用', 'full multi-head cache would need': '完整多头缓存所需',
    'tokens': '词元', 'bytes': '字节', 'context limit %1': '上下文上限 %1',
    'No tokens in the cache yet': '缓存中尚无词元', '%1 of %2 tokens (%3%)': '%1 / %2 个词元（%3%）',
    '%1 tokens': '%1 个词元', 'held %1, allocated %2': '已占用 %1，已分配 %2',
    '%1 per token': '每词元 %1', 'a full multi-head cache would hold %1 (%2×)':
        '完整多头缓存将占用 %1（%2 倍）',
    'Sampling: no step yet': '采样：尚无步骤', 'raw': '原始', 'after penalties': '惩罚后',
    'after temperature': '温度后', 'final (top-k, top-p, min-p)': '最终（top-k、top-p、min-p）',
    'cumulative mass': '累积概率', 'candidates, best first': '候选词元（由高到低）',
    'probability': '概率', 'cumulative': '累积', 'chosen': '选中', ' cut off': ' 截断',
    'step': '步', 'entropy (nats)': '熵（奈特）', 'chosen p': '选中概率', 'entropy': '熵',
    "chosen token's probability": '选中词元的概率',
    'Step %1 · entropy %2 nats · chosen p = %3 · %4 kept, nucleus mass %5':
        '第 %1 步 · 熵 %2 奈特 · 选中概率 = %3 · 保留 %4 个，核概率质量 %5',
    ' · chosen token not among the %1 shown': ' · 选中的词元不在显示的 %1 个之中',
    'Position %1': '位置 %1', 'id %1': 'ID %1', 'piece “%1”': '片段“%1”', 'bytes %1': '字节 %1',
    'special token': '特殊词元', 'byte fallback': '字节回退', 'generated': '生成', 'prompt': '提示',
    'No tokens yet': '尚无词元', '&Language': '语言(&L)', 'System default': '跟随系统',
    'Chat with a local language model and watch what happens inside.':
        '与本地语言模型对话，观察其内部发生的一切。',
    'Model to open.': '要打开的模型。', "Send TEXT as the user's chat message.":
        '将 TEXT 作为用户的聊天消息发送。', 'Tokens to generate at most.': '最多生成的词元数。',
    'Exit when the generation ends (0 on success).': '生成结束时退出（成功时返回 0）。',
    '%1 needs %2 MB (weights %3 MB + KV cache %4 MB at %5 tokens), but only %6 MB of memory are '
    'free; choose a smaller context or close programs':
        '%1 需要 %2 MB（权重 %3 MB + %5 个词元的 KV 缓存 %4 MB），但只有 %6 MB 可用内存；'
        '请选择更小的上下文或关闭其他程序',
    'Loading was cancelled; the previous model stays.': '已取消加载；仍使用之前的模型。',
    'superseded': '已被新的选择取代', 'Attention of layer %1 recomputed': '已重新计算第 %1 层的注意力',
    'Attention of layer %1 not recomputed: %2': '未重新计算第 %1 层的注意力：%2',
    ' Context ': ' 上下文 ', 'auto': '自动',
    "Tokens the KV cache holds (auto: the model's context, at most 4,096); applies when a model is "
    'opened': 'KV 缓存容纳的词元数（自动：模型的上下文长度，最多 4,096）；打开模型时生效',
    'Cancel': '取消', 'Stop loading; the previous model stays': '停止加载；仍使用之前的模型',
    'Attention heads': '注意力头', 'mean attention entropy (nats)': '平均注意力熵（奈特）',
    "The prompt's attention is over the memory budget for every head: the overview counts "
    'generated tokens only.': '提示的注意力超出了全部注意力头的内存预算：概览只统计生成的词元。',
    'Attention overview': '注意力概览', 'Generation running': '正在生成',
    'Stop the generation before opening another model.': '请先停止生成，再打开其他模型。',
    'needs %1 (weights %2 + KV cache %3 at %4 tokens)': '需要 %1（权重 %2 + %4 个词元的 KV 缓存 %3）',
    'of %1 free': '，可用 %1',
    '%1 · %2 · %3 parameters · %4 · context %5 of %6 · %7':
        '%1 · %2 · %3 参数 · %4 · 上下文 %5 / %6 · %7',
    '%1 in memory': '占用内存 %1',
    'Preview of step %1 with the new parameters; they apply from the next token':
        '用新参数预览第 %1 步；新参数从下一个词元起生效',
    'Recomputing the attention of layer %1…': '正在重新计算第 %1 层的注意力…',
    'Open a trace': '打开轨迹', 'Traces (*.jsonl *.json);;All files (*)':
        '轨迹 (*.jsonl *.json);;所有文件 (*)', 'Open &trace…': '打开轨迹(&T)…',
    'Export t&race…': '导出轨迹(&R)…',
    "The last generation's events as JSON lines (the format of inferlens-cli trace)":
        '上一次生成的全部事件，JSON Lines 格式（与 inferlens-cli trace 相同）',
    'There is no generation to export yet.': '还没有可导出的生成。',
    'Cannot write “%1”.': '无法写入“%1”。', 'Export the trace': '导出轨迹',
    'Traces (*.jsonl *.json)': '轨迹 (*.jsonl *.json)',
    'Stop the generation before opening a trace.': '请先停止生成，再打开轨迹。',
    'Reading %1…': '正在读取 %1…', 'Cannot open the trace': '无法打开轨迹',
    'Replaying %1': '正在回放 %1',
    'Replayed %1 tokens from %2 (the generation ended: %3)':
        '已回放 %2 中的 %1 个词元（生成的结束原因：%3）',
    'A trace holds the attention of the head it recorded only': '轨迹只包含录制时所选注意力头的注意力',
    'Replay a trace (JSON lines) instead of loading a model.': '回放轨迹（JSON Lines），不加载模型。',
    'there is no generation to branch from': '没有可以分支的生成',
    'step %1 is not in the last generation': '第 %1 步不在上一次生成中',
    'token %1 is not in the vocabulary': '词元 %1 不在词表中',
    'Branching starts from a finished generation: stop this one first':
        '分支要从已结束的生成开始：请先停止当前生成',
    'Forcing “%1” at step %2 and continuing': '在第 %2 步强制选择“%1”并继续生成',
    '“%1” forced at step %2': '第 %2 步强制为“%1”', 'the answer': '原回答', '%1. %2': '%1. %2',
    'forced, p = %1': '强制，p = %1', 'p = %1': 'p = %1',
    'No branches yet: click a candidate in the sampling panel to force it and continue.':
        '还没有分支：在采样面板中点击一个候选词元，即可强制选择它并继续生成。',
    'Branches': '分支',
    '1. Chat template and tokenization': '1. 聊天模板与分词',
    'Your message was wrapped in the <b>%1</b> chat template and cut into <b>%2 tokens</b>: %3… '
    'Each chip is one entry of the %4-entry vocabulary; hover one for its id and bytes.':
        '你的消息先套上 <b>%1</b> 聊天模板，再切分成 <b>%2 个词元</b>：%3… 每个小块是 %4 个词表条目中的一个；'
        '把鼠标悬停在上面可以看到它的 ID 和字节。',
    'Send a message: it is wrapped in the <b>%1</b> chat template and cut into tokens from the '
    '%2-entry vocabulary.': '发送一条消息：它会套上 <b>%1</b> 聊天模板，再切分成来自 %2 个词表条目的词元。',
    '2. Embedding lookup': '2. 词嵌入查表',
    'Each token id selects one row of the embedding table [%1, %2]. The %3 tokens become the '
    'hidden states %4: one vector of %2 numbers per token.':
        '每个词元 ID 选出嵌入表 [%1, %2] 中的一行。%3 个词元变成隐藏状态 %4：每个词元一个含 %2 个数的向量。',
    '3. The inner loop: %1 layers': '3. 内层循环：%1 层',
    'The hidden states now pass through %1 identical layers, one after the other (the rows of the '
    'double-loop grid). Each starts with RMSNorm: every vector is divided by its root mean square '
    'and scaled by learned weights, shape unchanged %2.':
        '隐藏状态依次经过 %1 个结构相同的层（即双重循环网格的各行）。每层先做 RMSNorm：每个向量除以其均方根，'
        '再乘以学到的权重，形状不变 %2。',
    '4. Query, key and value': '4. 查询、键与值',
    'Three projections turn each vector into a query %1 — %2 heads of %3 numbers — and a key and '
    'a value %4 each: %5 %6 shared by all query heads. That is %7 of arithmetic per layer for '
    'this prompt.': '三个投影把每个向量变成查询 %1（%2 个头，每个 %3 个数），以及各为 %4 的键和值：'
                    '%5 个%6由所有查询头共享。对这个提示，每层要做 %7 的运算。',
    'key/value head': '键/值头', 'key/value heads': '键/值头',
    '5. RoPE': '5. 旋转位置编码（RoPE）',
    "Rotary position embedding turns the first %1 of each head's %2 numbers by angles that grow "
    "with the token's position, so that the dot product of a query and a key depends on how far "
    'apart they are.': '旋转位置编码把每个头 %2 个数中的前 %1 个按随词元位置增大的角度旋转，'
                       '使查询与键的点积取决于二者相距多远。',
    '6. Scores and softmax': '6. 注意力分数与 softmax',
    'Each query is compared with the key of every earlier token (the causal mask): %1 scores per '
    'head, divided by √%2 and turned into weights that sum to 1 by softmax. The heat map shows '
    'them for layer %3, head %4: row = query, column = key.':
        '每个查询与之前每个词元的键比较（因果掩码）：每个头 %1 个分数，除以 √%2 后经 softmax 变成和为 1 的权重。'
        '热力图显示第 %3 层第 %4 个头的权重：行 = 查询，列 = 键。',
    '7. Weighted sum, output projection, residual': '7. 加权求和、输出投影与残差',
    'Each head adds up the values with those weights %1; the heads are joined and projected back '
    'to %2 numbers per token, and added to the hidden states (the residual stream), which keep '
    'their shape %3.': '每个头用这些权重对值加权求和 %1；各头拼接后投影回每个词元 %2 个数，'
                       '再加到隐藏状态（残差流）上，形状保持 %3。',
    '8. RMSNorm, SwiGLU MLP, residual': '8. RMSNorm、SwiGLU MLP 与残差',
    'A second RMSNorm, then the MLP widens every vector to %1 (two projections, one through SiLU, '
    'multiplied), and narrows it back to %2; the result is added to the residual stream. The MLP '
    'holds most of the weights: %3 per layer and prompt.':
        '再做一次 RMSNorm，然后 MLP 把每个向量扩展到 %1（两个投影，其一经过 SiLU，再相乘），'
        '又压缩回 %2；结果加到残差流上。MLP 占了大部分权重：每层每个提示 %3。',
    '9. Final norm and LM head': '9. 最终归一化与语言模型头',
    "After layer %1, a last RMSNorm, and the LM head turns the last token's vector into logits "
    'over %2 entries %3: one score for every token the model could say next.':
        '第 %1 层之后再做一次 RMSNorm，语言模型头把最后一个词元的向量变成 %2 个条目上的 logits %3：'
        '模型下一步可能说出的每个词元各有一个分数。',
    '10. Sampling': '10. 采样',
    'Softmax turns the logits into probabilities; temperature %1 sharpens or flattens them, top-k '
    '%2 and top-p %3 cut the tail: %4 candidates were left, and the draw chose “%5” (p = %6). Move '
    'a slider while paused to re-shape this step.':
        'softmax 把 logits 变成概率；温度 %1 让分布更尖或更平，top-k %2 与 top-p %3 截掉长尾：剩下 %4 个候选，'
        '抽样选中了“%5”（p = %6）。暂停时拖动滑块可以重新塑造这一步。',
    'Softmax turns the logits into probabilities; temperature %1 sharpens or flattens them, top-k '
    '%2 and top-p %3 cut the tail, and one token is drawn.':
        'softmax 把 logits 变成概率；温度 %1 让分布更尖或更平，top-k %2 与 top-p %3 截掉长尾，然后抽取一个词元。',
    '11. The outer loop': '11. 外层循环',
    'The chosen token is appended and the whole inner loop runs again, for that one token only: '
    'the double-loop grid has one column per step. This answer took %1 tokens and ended with '
    '“%2”.': '选中的词元被追加到序列末尾，整个内层循环再为这一个词元运行一遍：双重循环网格每步一列。'
             '这次回答用了 %1 个词元，以“%2”结束。',
    'The chosen token is appended and the inner loop runs again for it, until the '
    'end-of-sequence token or the length limit.':
        '选中的词元被追加到序列末尾，内层循环再为它运行一遍，直到遇到结束词元或达到长度上限。',
    '12. The KV cache': '12. KV 缓存',
    'Keys and values of past tokens never change, so each layer keeps them: the next step '
    'computes one new query, key and value and reads the rest from the cache. It holds %1 per '
    'token here (f32), at most %2 tokens. With %3 key/value groups instead of %4 heads it needs '
    '%5 per token at fp16 instead of %6: the KV panel draws both lines.':
        '过去词元的键和值不会改变，所以每层都把它们存起来：下一步只需计算一个新的查询、键和值，其余从缓存读取。'
        '这里每个词元占 %1（f32），最多 %2 个词元。由于只有 %3 个键/值组而不是 %4 个头，fp16 下每个词元只需 %5，'
        '而不是 %6：KV 面板画出了这两条线。',
    '13. What a step costs': '13. 一步的代价',
    "The prompt's step does %1 and moves %2: %3 FLOP per byte, compute-bound. A decode step does "
    '%4 for one token but still reads every weight (%5): %6 FLOP per byte, bound by memory '
    'bandwidth. The shapes-and-costs table lists every stage.':
        '处理提示的那一步做 %1 运算、搬运 %2 数据：每字节 %3 FLOP，受算力限制。解码一步只为一个词元做 %4 运算，'
        '却仍要读取全部权重（%5）：每字节 %6 FLOP，受内存带宽限制。“形状与代价”表列出了每个阶段。',
    'send a message first: the experiment reruns its prompt': '请先发送一条消息：实验会重新运行它的提示',
    'cancelled': '已取消', 'Guided tour': '导览', 'Shapes and costs': '形状与代价',
    'Logit lens': 'Logit 透镜', 'KV cache experiment': 'KV 缓存实验',
    'KV cache experiment running (Stop cancels)': 'KV 缓存实验进行中（“停止”可取消）',
    'The stages of the next step appear here as it runs.': '下一步运行时，它的各个阶段会显示在这里。',
    'Step %1 (%2): %3 token(s) after %4 · per layer %5 and %6 moved · %7 FLOP per byte: %8':
        '第 %1 步（%2）：在 %4 个词元之后处理 %3 个 · 每层 %5 运算、搬运 %6 · 每字节 %7 FLOP：%8',
    'memory-bound': '受内存带宽限制', 'compute-bound': '受算力限制',
    ' · measured: %1 ms per layer, %2/s and %3/s': ' · 实测：每层 %1 毫秒，%2/s 与 %3/s',
    'stage': '阶段', 'tensor': '张量', 'shape': '形状', 'FLOPs': 'FLOPs', 'bytes moved': '搬运字节',
    'FLOP / byte': 'FLOP / 字节', 'per layer': '每层', 'once': '一次', 'Experiment: %1': '实验：%1',
    'New tokens per run': '每次运行的新词元数', 'Run with and without the KV cache': '分别在有/无 KV 缓存时运行',
    'Greedy generation of the last prompt twice: with the cache, then rerunning the whole '
    'sequence at every step (Stop cancels)': '对上一个提示做两次贪心生成：先用缓存，再在每一步重新运行整个序列（“停止”可取消）',
    '%1 key/value groups instead of %2 heads: %3 KiB instead of %4 KiB per token at fp16 (%5 '
    'layers × keys and values × %1 × %6 numbers × 2 bytes), %7× less memory.':
        '%1 个键/值组而不是 %2 个头：fp16 下每个词元 %3 KiB 而不是 %4 KiB'
        '（%5 层 × 键和值 × %1 × %6 个数 × 2 字节），内存少 %7 倍。',
    'Back': '上一步', 'Next': '下一步', 'Step %1 of %2': '第 %1 步，共 %2 步',
    'Open a model to start the tour': '打开一个模型以开始导览',
    '%1 tokens: %2× faster': '%1 个词元：快 %2 倍', ' (%1× the FLOPs without)': '（无缓存时 FLOPs 为 %1 倍）',
    'Run the experiment to compare': '运行实验以进行比较', 'Running…': '运行中…',
    ' · the two runs chose different tokens!': ' · 两次运行选出的词元不同！',
    'with the KV cache': '使用 KV 缓存', 'without (each step reruns the sequence)': '不使用（每步重新运行整个序列）',
    'generated token': '生成的词元', 'milliseconds': '毫秒', '‖h‖': '‖h‖', '#%1': '#%1',
    'cannot start the KV cache experiment': '无法开始 KV 缓存实验', 'no panel named %1': '没有名为 %1 的面板',
    'Bring these docks (object names, comma-separated) to the front before the screenshot.':
        '截图前把这些停靠面板（对象名，逗号分隔）调到前面。',
    'Compute the logit lens.': '计算 logit 透镜。',
    'After the generation, run the KV cache on/off experiment with N tokens.':
        '生成结束后，用 N 个词元运行 KV 缓存开/关实验。',
    'Show step N of the guided tour.': '显示导览的第 N 步。',
    'Memory': '内存', ' MB': ' MB',
    'Most memory the heat map may hold. A longer sequence is shown pooled: each cell the largest '
    'weight of a block of positions.': '热力图最多可占用的内存。更长的序列会以池化方式显示：每个单元格是一块位置中的最大权重。',
    '%1 (%2) … %3 (%4) → %5 (%6) … %7 (%8)': '%1（%2）… %3（%4）→ %5（%6）… %7（%8）',
    '%1: masked (future tokens)': '%1：已遮蔽（未来的词元）',
    '%1: at most %2 (%3 × %3 positions per cell)': '%1：最大 %2（每个单元格 %3 × %3 个位置）',
    ' · %1 × %1 positions per cell (their maximum), to stay within the %2 memory budget':
        ' · 每个单元格 %1 × %1 个位置（取其最大值），以保持在 %2 的内存预算之内',
    'out of memory': '内存不足',
    'logit bias': 'logit 偏置', 'banned text': '禁用文本', 'min new tokens': '最少新词元数',
    'Logit bias': 'Logit 偏置', 'ID=value, … (-inf bans, +inf forces)': 'ID=值, …（-inf 禁止，+inf 强制）',
    'Banned text': '禁用文本', 'never generated; separate with |': '永不生成；用 | 分隔',
    'Min new tokens': '最少新词元数', 'The answer cannot end before this many tokens': '回答在生成这么多词元之前不能结束',
    'Stop at': '停止于', 'ends the answer, not shown; separate with |': '在此结束回答，不显示；用 | 分隔',
    '“%1” %2% (%3)': '“%1” %2%（%3）', 'Masked by the logit processors: %1': '被 logit 处理器屏蔽：%1',
    'Load a grammar': '加载语法', 'Grammars (*.gbnf *.txt);;All files (*)': '语法文件 (*.gbnf *.txt);;所有文件 (*)',
    'Grammar': '语法', 'Load…': '加载…', 'none': '无', 'The grammar allowed %1 tokens': '语法允许了 %1 个词元',
    'Grammars and JSON schemas (*.gbnf *.txt *.json);;All files (*)': '语法与 JSON 模式 (*.gbnf *.txt *.json);;所有文件 (*)',
    'Beam tree': '束搜索树', 'Beams': '束数', 'Length penalty': '长度惩罚',
    '1: sample with the settings below. 2 or more: beam search keeps that many continuations and '
    'answers with the most probable; the sampling settings do not apply, and the Beam tree panel '
    'shows it': '1：按下面的设置采样。2 或更多：束搜索保留这么多个续写，并以概率最高者作答；'
    '采样设置不再适用，“束搜索树”面板会展示搜索过程',
    'Beam search scores a hypothesis by its log-probability divided by its length to this power: '
    'above 0 favours longer answers': '束搜索给假设打分：对数概率除以长度的该次幂；大于 0 时偏向更长的回答',
    'Pruned candidates shown per beam': '每个束显示的被剪枝候选数',
    'Each beam offers twice the width in candidates at every step; the most probable of those '
    'pruned are drawn, dimmed': '每一步每个束提供束宽两倍的候选；被剪枝者中概率最高的几个以淡色画出',
    'Set Beams above 1 in the sampling parameters to answer by beam search: its tree grows here, '
    'step by step.': '在采样参数中把“束数”设为大于 1，即可用束搜索作答：搜索树会在这里逐步生长。',
    'Beam search with %1 beams: step %2': '束搜索，%1 个束：第 %2 步',
    'Beam search with %1 beams: %n step(s), at most %2 KV caches at once':
        '束搜索，%1 个束：%n 步，同时最多 %2 个 KV 缓存',
    ' (stopped)': '（已停止）', '%1. “%2” — log p %3, score %4%5': '%1. “%2” — log p %3，得分 %4%5',
    ', unfinished': '，未完成',
    'kept as a beam; %n of its continuations pruned': '保留为束；其续写中有 %n 个被剪枝',
    'pruned: other continuations were more probable': '已剪枝：其他续写的概率更高',
    'finished: a stop token ends this hypothesis': '已完成：停止词元结束了这个假设',
    '“%1” at step %2\nlog p = %3 (p = %4)\ncumulative log p = %5\n%6':
        '第 %2 步的“%1”\nlog p = %3（p = %4）\n累计 log p = %5\n%6',
    'prompt': '提示', "all beams' caches": '所有束的缓存',
    'beam search: %1 caches, %2 more for the other %n beam(s)': '束搜索：%1 个缓存，其余 %n 个束多占 %2',
    'Answer by beam search with N beams.': '用 N 个束的束搜索作答。',
    'The answer follows this grammar (a .json file: a JSON schema).': '回答遵循此语法（.json 文件：JSON 模式）。',
    'Time both kernels at 512, 2,048 and 8,192 tokens': '在 512、2,048 和 8,192 个词元上为两种内核计时',
    "One layer's attention over a whole prompt, on random numbers in the loaded model's layout (Stop cancels)":
        '对整段提示计算一层注意力，使用随机数和已加载模型的布局（“停止”可取消）',
    'Tokens': '词元数', 'Reference, ms': '参考内核，毫秒', 'Fused, ms': '融合内核，毫秒',
    'Fused is faster by': '融合内核快', 'Score matrix not stored': '未存储的分数矩阵',
    'Attention kernels: nothing measured': '注意力内核：尚未测量',
    'Attention at %1 tokens: reference %2 ms, fused %3 ms (%4× faster), outputs differ by %5':
        '%1 个词元的注意力：参考 %2 毫秒，融合 %3 毫秒（快 %4 倍），输出相差 %5',
    '%1×': '%1 倍', '%1 MiB per head': '每个头 %1 MiB',
    'outputs differ by %1 (relative, rounding only)': '输出相差 %1（相对误差，仅为舍入）',
    'Measured here for one layer of the loaded model: %1 query heads in %2 key/value groups, head size %3.':
        '此处测量的是已加载模型的一层：%1 个查询头，分为 %2 个键/值组，头维度 %3。',
    ("Attention compares every token's query with the keys of all tokens before it. The reference "
     'kernel does it row by row: the scores, their softmax (the probabilities the attention panels '
     'draw), then the weighted sum of the values. The fused kernel streams blocks of keys past blocks '
     'of queries and keeps, per query, only a running maximum, a running sum and a running weighted '
     'sum (an online softmax): the tokens × tokens score matrix never exists, and each block of keys '
     'is read once for many queries. The output is the same up to rounding, so InferLens uses the '
     'fused kernel (Device menu) and computes the probabilities beside it only for the heads a panel '
     'shows.'):
        '注意力把每个词元的查询与它之前所有词元的键相比较。参考内核逐行计算：先算分数，再做 softmax'
        '（注意力面板画出的概率），最后对值加权求和。融合内核让一块块键依次经过一块块查询，每个查询只保留'
        '当前最大值、当前指数和与当前加权和（在线 softmax）：词元数 × 词元数的分数矩阵从不出现，每块键'
        '只读一次就供许多查询使用。两者输出只差舍入误差，因此 InferLens 使用融合内核（设备菜单），只为面板'
        '显示的头另外计算概率。',
    'Attention kernels': '注意力内核', 'cannot time the attention kernels': '无法为注意力内核计时',
    'Attention kernels: %1': '注意力内核：%1',
    'Timing the attention kernels (Stop cancels)': '正在为注意力内核计时（“停止”可取消）',
    'After the generation, time the fused and the reference attention kernels.':
        '生成结束后，为融合内核和参考内核计时。',
    '%1 of %2 prompt tokens from the KV cache, first token after %3 ms':
        '提示的 %2 个词元中 %1 个来自 KV 缓存，首个词元用时 %3 毫秒',
    'Keep the KV cache between turns (prefill only what is new)': '在轮次之间保留 KV 缓存（只预填充新内容）',
    'Running the sequence again with an exact f32 cache…': '正在用精确的 f32 缓存重新运行整个序列…',
    'No comparison: %1': '无法比较：%1',
    'Step %1, %2 cache against an exact one: KL divergence %3 nats, largest probability difference %4; most likely next token %5 (exact cache: %6)':
        '第 %1 步，%2 缓存与精确缓存相比：KL 散度 %3 奈特，最大概率差 %4；最可能的下一个词元 %5（精确缓存：%6）',
    'Compare with an exact cache': '与精确缓存比较',
    "Recomputes the current step with an f32 KV cache that keeps every token and shows how far this step's distribution is from it":
        '用保留全部词元的 f32 KV 缓存重新计算当前步，并显示本步分布与它相差多远',
    'The GPU keeps an f32 KV cache without a sliding window: int8 and f16 caches and windows apply when the model runs on the CPU.':
        'GPU 使用不带滑动窗口的 f32 KV 缓存：int8、f16 缓存和滑动窗口只在模型运行于 CPU 时生效。',
    'there is no sampled step to compare yet': '还没有可比较的采样步',
    ', window %1 + %2 sinks': '，窗口 %1 + %2 个汇聚词元',
    'the comparison was cancelled': '比较已取消',
    'KV cache as f32 (exact)': 'KV 缓存用 f32（精确）',
    'KV cache as f16 (half the memory)': 'KV 缓存用 f16（内存减半）',
    'KV cache as int8 (a quarter, one scale per head and token)': 'KV 缓存用 int8（四分之一，每个头每个词元一个缩放）',
    'Sliding KV cache window: %1 sink tokens + the last %2…': '滑动 KV 缓存窗口：%1 个汇聚词元 + 最近 %2 个…',
    'Sliding KV cache window: off…': '滑动 KV 缓存窗口：关闭…',
    'Sliding KV cache window': '滑动 KV 缓存窗口',
    'The cache keeps the first tokens (the attention sinks) and the most recent ones, and evicts the rest, so generation runs on past the context in constant memory. Keys keep the positions they were computed at. Runs on the CPU.':
        '缓存保留最前面的词元（注意力汇聚点）和最近的词元，其余的被逐出，因此生成可以在固定内存中越过上下文长度继续。键保持计算时的位置。在 CPU 上运行。',
    'Slide the KV cache': '滑动 KV 缓存',
    'Recent tokens kept': '保留的最近词元数',
    'Sink tokens kept': '保留的汇聚词元数',
    '%1 (%2) → %3 (%4): evicted from the sliding KV cache, never attended': '%1 (%2) → %3 (%4)：已被滑动 KV 缓存逐出，从未被关注',
    "%1 (%2) → %3 (%4): outside this layer's window, never attended": '%1 (%2) → %3 (%4)：在本层的窗口之外，从未被关注',
    'sliding window: %1 sink tokens and the last %2; %3 evicted so far': '滑动窗口：%1 个汇聚词元和最近 %2 个；已逐出 %3 个',
    'stored as %1: %2 saved against f32 (%3%)': '以 %1 存储：比 f32 节省 %2（%3%）',
    "Store the CPU's KV cache as f32, f16 or int8 (this run).": 'CPU 的 KV 缓存以 f32、f16 或 int8 存储（仅本次运行）。',
    'A sliding KV cache of the last N tokens (0: none; this run).': '保留最近 N 个词元的滑动 KV 缓存（0：不用；仅本次运行）。',
    'The first tokens a sliding KV cache keeps (default 4).': '滑动 KV 缓存保留的最前面的词元数（默认 4）。',
    'After the generation, compare the last step with an exact KV cache.': '生成结束后，把最后一步与精确的 KV 缓存比较。',
    "beam search keeps every beam's whole KV cache: turn the sliding window off (Device menu) to search with beams":
        '束搜索要为每条束保留完整的 KV 缓存：请先关闭滑动窗口（设备菜单）再用束搜索',
    # Workspaces (issue 24)
    'Chat': '对话', 'Sampling lab': '采样实验室', 'Teaching': '教学',
    '&Guided tour': '导览(&G)', '&View': '视图(&V)', 'Workspaces': '工作区', '&Panels': '面板(&P)',
    '&Reset layout': '重置布局(&R)',
    'Every workspace back to its default layout': '把每个工作区恢复为默认布局',
    'Every workspace is back to its default layout': '每个工作区都已恢复为默认布局',
    'Next token': '下一个词元',
    'The panel layout saved by an earlier version was set aside: each workspace starts from its default layout (View menu, Ctrl+1…4)':
        '旧版本保存的面板布局已弃用：每个工作区从默认布局开始（视图菜单，Ctrl+1…4）',
    "The next token's candidates appear here as the model answers.": '模型回答时，这里显示下一个词元的候选。',
    'Step %1 · the five likeliest tokens, with the probability each was drawn with':
        '第 %1 步 · 最可能的五个词元，以及各自被抽中的概率',
    '◀ chosen': '◀ 选中', ' (greedy)': '（贪心）',
    'Temperature %1%2 · top-p %3 · top-k %4': '温度 %1%2 · top-p %3 · top-k %4', 'off': '关闭',
    'Compute the logit lens (slower)': '计算 logit 透镜（较慢）',
    'From the next step on: one LM head per layer and step, so every step is slower':
        '从下一步开始：每层每步各算一次 LM 头，所以每一步都更慢',
    'no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).\nA --screenshot run needs none: start it with QT_QPA_PLATFORM=offscreen.\ninferlens-cli (info, tokenize, chat, ...) works without a display.':
        '没有可以打开窗口的显示器（DISPLAY 和 WAYLAND_DISPLAY 都未设置）。\n--screenshot 运行不需要显示器：用 QT_QPA_PLATFORM=offscreen 启动。\ninferlens-cli（info、tokenize、chat 等）无需显示器即可使用。',
    "Type TEXT into the chat's input, ready to send (not sent).": '把 TEXT 填入对话输入框，待发送（不会发出）。',
    'Open this workspace: chat, sampling, attention or teaching (default: the last one used).':
        '打开此工作区：chat、sampling、attention 或 teaching（默认：上次使用的）。',
    'Open the window at this size, e.g. 1366x768 (default: fitted to the screen).':
        '以此尺寸打开窗口，例如 1366x768（默认：适应屏幕）。',
    'After generation, save the window as PNG, at the size it has (--window-size to choose).':
        '生成结束后，按窗口当前尺寸保存为 PNG（用 --window-size 选择尺寸）。',
    'Interface language: en, zh_CN or system.': '界面语言：en、zh_CN 或 system。',
    "--workspace: no workspace '%1'; choose one of %2": "--workspace：没有名为“%1”的工作区；请从 %2 中选择",
    "--window-size: '%1' is not a window size; give WIDTHxHEIGHT in pixels, from 320x240 to 8192x8192, e.g. 1366x768":
        "--window-size：“%1”不是窗口尺寸；请给出以像素计的 宽x高，从 320x240 到 8192x8192，例如 1366x768",
    "--%1 needs a number of tokens, not '%2'": "--%1 需要一个词元数，而不是“%2”",
    # Shapes and costs against the machine's limits (issue 25)
    "Measuring this machine's read bandwidth and int8 peak…": '正在测量本机的读取带宽和 int8 峰值…',
    "Against this machine's limit: %1/s in the weight products, %2% of the int8 peak of the %3 kernels (%4/s, %5 threads)":
        '对照本机上限：权重乘积 %1/s，为 %3 内核 int8 峰值的 %2%（%4/s，%5 个线程）',
    "Against this machine's limit: %1/s of weights read, %2% of the read bandwidth (%3/s, %4 threads)":
        '对照本机上限：每秒读取权重 %1/s，为读取带宽的 %2%（%3/s，%4 个线程）',
    "The conversation is longer than the server's context of %1 tokens: the oldest %n round(s) are left out of the prompt.":
        "对话长于服务器的 %1 个词元的上下文：最早的 %n 轮未放入提示。",
    "List models":
        "列出模型",
    "Remember the key on this computer":
        "在这台电脑上记住密钥",
    "Connect to a server":
        "连接到服务器",
    "A server with the OpenAI-compatible API: llama-server, vLLM, SGLang":
        "提供 OpenAI 兼容 API 的服务器：llama-server、vLLM、SGLang",
    "the server's first model":
        "服务器的第一个模型",
    "From file…":
        "从文件读取…",
    "Browse…":
        "浏览…",
    "the system's certificate authorities":
        "系统的证书颁发机构",
    "Server":
        "服务器",
    "API key":
        "API 密钥",
    "Certificate authorities":
        "证书颁发机构",
    "Connect":
        "连接",
    "PEM files (*.pem *.crt);;All files (*)":
        "PEM 文件 (*.pem *.crt);;所有文件 (*)",
    "Asking %1 for its models…":
        "正在向 %1 询问其模型…",
    "Cannot list the models: %1":
        "无法列出模型：%1",
    "1 model served":
        "提供 1 个模型",
    "%1 models served":
        "提供 %1 个模型",
    "API key file":
        "API 密钥文件",
    "Cannot read %1":
        "无法读取 %1",
    "the server's":
        "服务器的",
    "the server's own chat template":
        "服务器自己的对话模板",
    "this build has no remote client (INFERLENS_REMOTE=OFF)":
        "此构建没有远程客户端（INFERLENS_REMOTE=OFF）",
    "The server does not take these settings, which are left out: %1":
        "服务器不接受以下设置，已略去：%1",
    "The settings changed at token %1 of the answer: the server goes on from there with the new ones.":
        "设置在回答的第 %1 个词元处改变：服务器从那里起按新设置继续。",
    "Paused at token %1 of the answer: the request to the server is closed, and Resume asks it to go on from there.":
        "已在回答的第 %1 个词元处暂停：发给服务器的请求已关闭，点“继续”会请服务器从那里接着生成。",
    "Not for a model on a server: its answer can be paused and resumed, not stepped (the server runs the layers)":
        "不适用于服务器上的模型：它的回答可以暂停和继续，但不能单步执行（各层在服务器上运行）",
    "%1 prompt tokens, first token after %2 ms (network included)":
        "提示 %1 个词元，首个词元用时 %2 毫秒（含网络）",
    "&Connect to server…":
        "连接到服务器(&C)…",
    "Watch a model that llama-server, vLLM or SGLang serves (the OpenAI-compatible API)":
        "观察由 llama-server、vLLM 或 SGLang 提供的模型（OpenAI 兼容 API）",
    "Token arrival":
        "词元到达",
    "%1 · %2 at %3 · context %4":
        "%1 · %2，位于 %3 · 上下文 %4",
    "unknown":
        "未知",
    "Connected to %1 (%2), model %3":
        "已连接到 %1（%2），模型 %3",
    "Branching on a model on a server is not available yet: the answer would have to be sent again up to this step":
        "服务器上的模型暂不支持分支：需要把回答到这一步为止重新发送",
    "Stop the answer first":
        "请先停止回答",
    "Connecting to %1…":
        "正在连接 %1…",
    "cannot connect to the server: %1":
        "无法连接到服务器：%1",
    "Cannot connect to the server":
        "无法连接到服务器",
    "Not available for a model on a server: the API returns tokens and their probabilities, not the layers, attention or hidden states that made them.":
        "服务器上的模型无法提供：API 只返回词元及其概率，不返回产生它们的各层、注意力或隐藏状态。",
    "Not available for a model on a server: its KV cache stays on the server.":
        "服务器上的模型无法提供：它的 KV 缓存留在服务器上。",
    "Not available for a model on a server: beam search needs every hypothesis's scores at each step, which the API does not return":
        "服务器上的模型无法使用：束搜索每一步都需要每个候选序列的分数，而 API 不返回这些分数",
    "Not available for a model on a server: the API does not carry it":
        "服务器上的模型无法使用：API 不传递此设置",
    "Step %1 · the five likeliest tokens, with the model's probability as the server reports it":
        "第 %1 步 · 最可能的五个词元，以及服务器报告的模型概率",
    "rest of the vocabulary (split unknown)":
        "词表其余部分（分布未知）",
    "rest":
        "其余",
    "Step %1 · the server's top %2 hold %3 of the probability, the rest (%4) is unknown · chosen p = %5 (before the server's sampling)":
        "第 %1 步 · 服务器给出的前 %2 个占概率 %3，其余（%4）未知 · 选中 p = %5（服务器采样之前）",
    "wait between tokens (ms)":
        "词元间等待（毫秒）",
    "Token arrival: the waits between a server's tokens appear here as it answers":
        "词元到达：服务器回答时，各词元之间的等待时间显示在这里",
    "Time to first token %1 ms · between tokens: median %2 ms (dashed), 95th percentile %3 ms · %4 tokens":
        "首个词元 %1 毫秒 · 词元之间：中位数 %2 毫秒（虚线），第 95 百分位 %3 毫秒 · %4 个词元",
    "Connect to a server with the OpenAI-compatible API (llama-server, vLLM, SGLang) instead of loading a model; the API key, if any, from INFERLENS_API_KEY.":
        "连接到提供 OpenAI 兼容 API 的服务器（llama-server、vLLM、SGLang），而不加载模型；API 密钥（如有）取自 INFERLENS_API_KEY。",
    "The model to use on the --remote server (default: its first).":
        "--remote 服务器上要使用的模型（默认：第一个）。",
    "step %1 is not in the last answer":
        "第 %1 步不在上一个回答中",
    "token %1 is not among the server's candidates at step %2":
        "词元 %1 不在服务器第 %2 步给出的候选中",
    "there is no answer to branch from":
        "没有可以分支的回答",
    "Step %1 · preview: re-shaped among the server's top %2 only (they hold %3 of the probability; the rest is left out) · %4 kept":
        "第 %1 步 · 预览：只在服务器给出的前 %2 个之中重新整形（它们占概率 %3；其余略去）· 保留 %4 个",
}
