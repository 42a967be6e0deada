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
    'device: CPU</p><p>MIT licence. The bundled model inferlens-nano is GPL-3.0-or-later (its training '
    'data).</p>':
        '<h3>InferLens %1</h3><p>在本地运行语言模型，并逐个词元展示其内部过程：分词、注意力、KV 缓存、'
        '采样。</p><p>Qt %2（编译时 %3）· 计算设备：CPU</p><p>MIT 许可证。内置模型 inferlens-nano '
        '采用 GPL-3.0 或更高版本（源于其训练数据）。</p>',
    'Tokenization': '分词', 'Log colour scale': '对数色标', 'Layer': '层', 'Head': '头',
    'Attention': '注意力', 'Sampling': '采样', 'Sampling parameters': '采样参数',
    'KV cache': 'KV 缓存', 'Double loop': '双重循环',
    'Open a Hugging Face model directory': '打开 Hugging Face 模型目录',
    'Open a GGUF model': '打开 GGUF 模型',
    'GGUF models (*.gguf);;All files (*)': 'GGUF 模型 (*.gguf);;所有文件 (*)',
    'Loading %1…': '正在加载 %1…',
    '%1 · %2 · %3 parameters · %4 · context %5 · %6': '%1 · %2 · %3 参数 · %4 · 上下文 %5 · %6',
    'Model loaded; chat template %1': '模型已加载；对话模板 %1',
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
    'After generation, save the window (1600×1000) as PNG.': '生成结束后，将窗口（1600×1000）保存为 PNG。',
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
}
