<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>ConversationStore</name>
    <message>
        <source>not a conversation of this version</source>
        <translation>不是此版本的对话文件</translation>
    </message>
    <message>
        <source>a turn without a role or text</source>
        <translation>有一轮对话缺少角色或文本</translation>
    </message>
    <message>
        <source>The saved conversation could not be read (%1); it was kept as %2.</source>
        <translation>无法读取已保存的对话（%1）；原文件已保留为 %2。</translation>
    </message>
    <message>
        <source>The saved conversation could not be read (%1) nor moved aside; it stays at %2 and will not be overwritten until moved.</source>
        <translation>无法读取已保存的对话（%1），也无法将其移开；它仍在 %2，移走之前不会被覆盖。</translation>
    </message>
    <message>
        <source>%1 is not a readable conversation; it is left as it is</source>
        <translation>%1 不是可读取的对话文件；保持原样</translation>
    </message>
</context>
<context>
    <name>DisplayText</name>
    <message>
        <source>%1 B</source>
        <translation>%1 B</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 TiB</source>
        <translation>%1 TiB</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <translation>%1 微秒</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
</context>
<context>
    <name>GuidedTour</name>
    <message>
        <source>1. Chat template and tokenization</source>
        <translation>1. 聊天模板与分词</translation>
    </message>
    <message>
        <source>Your message was wrapped in the &lt;b&gt;%1&lt;/b&gt; chat template and cut into &lt;b&gt;%2 tokens&lt;/b&gt;: %3… Each chip is one entry of the %4-entry vocabulary; hover one for its id and bytes.</source>
        <translation>你的消息先套上 &lt;b&gt;%1&lt;/b&gt; 聊天模板，再切分成 &lt;b&gt;%2 个词元&lt;/b&gt;：%3… 每个小块是 %4 个词表条目中的一个；把鼠标悬停在上面可以看到它的 ID 和字节。</translation>
    </message>
    <message>
        <source>Send a message: it is wrapped in the &lt;b&gt;%1&lt;/b&gt; chat template and cut into tokens from the %2-entry vocabulary.</source>
        <translation>发送一条消息：它会套上 &lt;b&gt;%1&lt;/b&gt; 聊天模板，再切分成来自 %2 个词表条目的词元。</translation>
    </message>
    <message>
        <source>2. Embedding lookup</source>
        <translation>2. 词嵌入查表</translation>
    </message>
    <message>
        <source>Each token id selects one row of the embedding table [%1, %2]. The %3 tokens become the hidden states %4: one vector of %2 numbers per token.</source>
        <translation>每个词元 ID 选出嵌入表 [%1, %2] 中的一行。%3 个词元变成隐藏状态 %4：每个词元一个含 %2 个数的向量。</translation>
    </message>
    <message>
        <source>3. The inner loop: %1 layers</source>
        <translation>3. 内层循环：%1 层</translation>
    </message>
    <message>
        <source>The hidden states now pass through %1 identical layers, one after the other (the rows of the double-loop grid). Each starts with RMSNorm: every vector is divided by its root mean square and scaled by learned weights, shape unchanged %2.</source>
        <translation>隐藏状态依次经过 %1 个结构相同的层（即双重循环网格的各行）。每层先做 RMSNorm：每个向量除以其均方根，再乘以学到的权重，形状不变 %2。</translation>
    </message>
    <message>
        <source>4. Query, key and value</source>
        <translation>4. 查询、键与值</translation>
    </message>
    <message>
        <source>Three projections turn each vector into a query %1 — %2 heads of %3 numbers — and a key and a value %4 each: %5 %6 shared by all query heads. That is %7 of arithmetic per layer for this prompt.</source>
        <translation>三个投影把每个向量变成查询 %1（%2 个头，每个 %3 个数），以及各为 %4 的键和值：%5 个%6由所有查询头共享。对这个提示，每层要做 %7 的运算。</translation>
    </message>
    <message>
        <source>key/value head</source>
        <translation>键/值头</translation>
    </message>
    <message>
        <source>key/value heads</source>
        <translation>键/值头</translation>
    </message>
    <message>
        <source>5. RoPE</source>
        <translation>5. 旋转位置编码（RoPE）</translation>
    </message>
    <message>
        <source>Rotary position embedding turns the first %1 of each head's %2 numbers by angles that grow with the token's position, so that the dot product of a query and a key depends on how far apart they are.</source>
        <translation>旋转位置编码把每个头 %2 个数中的前 %1 个按随词元位置增大的角度旋转，使查询与键的点积取决于二者相距多远。</translation>
    </message>
    <message>
        <source>6. Scores and softmax</source>
        <translation>6. 注意力分数与 softmax</translation>
    </message>
    <message>
        <source>Each query is compared with the key of every earlier token (the causal mask): %1 scores per head, divided by √%2 and turned into weights that sum to 1 by softmax. The heat map shows them for layer %3, head %4: row = query, column = key.</source>
        <translation>每个查询与之前每个词元的键比较（因果掩码）：每个头 %1 个分数，除以 √%2 后经 softmax 变成和为 1 的权重。热力图显示第 %3 层第 %4 个头的权重：行 = 查询，列 = 键。</translation>
    </message>
    <message>
        <source>7. Weighted sum, output projection, residual</source>
        <translation>7. 加权求和、输出投影与残差</translation>
    </message>
    <message>
        <source>Each head adds up the values with those weights %1; the heads are joined and projected back to %2 numbers per token, and added to the hidden states (the residual stream), which keep their shape %3.</source>
        <translation>每个头用这些权重对值加权求和 %1；各头拼接后投影回每个词元 %2 个数，再加到隐藏状态（残差流）上，形状保持 %3。</translation>
    </message>
    <message>
        <source>8. RMSNorm, SwiGLU MLP, residual</source>
        <translation>8. RMSNorm、SwiGLU MLP 与残差</translation>
    </message>
    <message>
        <source>A second RMSNorm, then the MLP widens every vector to %1 (two projections, one through SiLU, multiplied), and narrows it back to %2; the result is added to the residual stream. The MLP holds most of the weights: %3 per layer and prompt.</source>
        <translation>再做一次 RMSNorm，然后 MLP 把每个向量扩展到 %1（两个投影，其一经过 SiLU，再相乘），又压缩回 %2；结果加到残差流上。MLP 占了大部分权重：每层每个提示 %3。</translation>
    </message>
    <message>
        <source>9. Final norm and LM head</source>
        <translation>9. 最终归一化与语言模型头</translation>
    </message>
    <message>
        <source>After layer %1, a last RMSNorm, and the LM head turns the last token's vector into logits over %2 entries %3: one score for every token the model could say next.</source>
        <translation>第 %1 层之后再做一次 RMSNorm，语言模型头把最后一个词元的向量变成 %2 个条目上的 logits %3：模型下一步可能说出的每个词元各有一个分数。</translation>
    </message>
    <message>
        <source>10. Sampling</source>
        <translation>10. 采样</translation>
    </message>
    <message>
        <source>Softmax turns the logits into probabilities; temperature %1 sharpens or flattens them, top-k %2 and top-p %3 cut the tail: %4 candidates were left, and the draw chose “%5” (p = %6). Move a slider while paused to re-shape this step.</source>
        <translation>softmax 把 logits 变成概率；温度 %1 让分布更尖或更平，top-k %2 与 top-p %3 截掉长尾：剩下 %4 个候选，抽样选中了“%5”（p = %6）。暂停时拖动滑块可以重新塑造这一步。</translation>
    </message>
    <message>
        <source>Softmax turns the logits into probabilities; temperature %1 sharpens or flattens them, top-k %2 and top-p %3 cut the tail, and one token is drawn.</source>
        <translation>softmax 把 logits 变成概率；温度 %1 让分布更尖或更平，top-k %2 与 top-p %3 截掉长尾，然后抽取一个词元。</translation>
    </message>
    <message>
        <source>11. The outer loop</source>
        <translation>11. 外层循环</translation>
    </message>
    <message>
        <source>The chosen token is appended and the whole inner loop runs again, for that one token only: the double-loop grid has one column per step. This answer took %1 tokens and ended with “%2”.</source>
        <translation>选中的词元被追加到序列末尾，整个内层循环再为这一个词元运行一遍：双重循环网格每步一列。这次回答用了 %1 个词元，以“%2”结束。</translation>
    </message>
    <message>
        <source>The chosen token is appended and the inner loop runs again for it, until the end-of-sequence token or the length limit.</source>
        <translation>选中的词元被追加到序列末尾，内层循环再为它运行一遍，直到遇到结束词元或达到长度上限。</translation>
    </message>
    <message>
        <source>12. The KV cache</source>
        <translation>12. KV 缓存</translation>
    </message>
    <message>
        <source>Keys and values of past tokens never change, so each layer keeps them: the next step computes one new query, key and value and reads the rest from the cache. It holds %1 per token here (f32), at most %2 tokens. With %3 key/value groups instead of %4 heads it needs %5 per token at fp16 instead of %6: the KV panel draws both lines.</source>
        <translation>过去词元的键和值不会改变，所以每层都把它们存起来：下一步只需计算一个新的查询、键和值，其余从缓存读取。这里每个词元占 %1（f32），最多 %2 个词元。由于只有 %3 个键/值组而不是 %4 个头，fp16 下每个词元只需 %5，而不是 %6：KV 面板画出了这两条线。</translation>
    </message>
    <message>
        <source>13. What a step costs</source>
        <translation>13. 一步的代价</translation>
    </message>
    <message>
        <source>The prompt's step does %1 and moves %2: %3 FLOP per byte, compute-bound. A decode step does %4 for one token but still reads every weight (%5): %6 FLOP per byte, bound by memory bandwidth. The shapes-and-costs table lists every stage.</source>
        <translation>处理提示的那一步做 %1 运算、搬运 %2 数据：每字节 %3 FLOP，受算力限制。解码一步只为一个词元做 %4 运算，却仍要读取全部权重（%5）：每字节 %6 FLOP，受内存带宽限制。“形状与代价”表列出了每个阶段。</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
</context>
<context>
    <name>PanelExport</name>
    <message>
        <source>Nothing to export.</source>
        <translation>没有可导出的内容。</translation>
    </message>
    <message>
        <source>Cannot export to “%1”: unknown file type “%2” (use .png, .svg or .pdf).</source>
        <translation>无法导出到“%1”：未知的文件类型“%2”（请使用 .png、.svg 或 .pdf）。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Cannot export “%1”: the panel has no size.</source>
        <translation>无法导出“%1”：面板没有尺寸。</translation>
    </message>
    <message>
        <source>Cannot write “%1”: %2</source>
        <translation>无法写入“%1”：%2</translation>
    </message>
    <message>
        <source>Exported from InferLens</source>
        <translation>由 InferLens 导出</translation>
    </message>
    <message>
        <source>Cannot write “%1”: drawing the panel failed.</source>
        <translation>无法写入“%1”：绘制面板失败。</translation>
    </message>
</context>
<context>
    <name>RemoteAnswer</name>
    <message numerus="yes">
        <source>The conversation is longer than the server's context of %1 tokens: the oldest %n round(s) are left out of the prompt.</source>
        <translation><numerusform>对话长于服务器的 %1 个词元的上下文：最早的 %n 轮未放入提示。</numerusform></translation>
    </message>
    <message>
        <source>step %1 is not in the last answer</source>
        <translation>第 %1 步不在上一个回答中</translation>
    </message>
    <message>
        <source>token %1 is not among the server's candidates at step %2</source>
        <translation>词元 %1 不在服务器第 %2 步给出的候选中</translation>
    </message>
</context>
<context>
    <name>SamplingStage</name>
    <message>
        <source>logit bias</source>
        <translation>logit 偏置</translation>
    </message>
    <message>
        <source>banned text</source>
        <translation>禁用文本</translation>
    </message>
    <message>
        <source>min new tokens</source>
        <translation>最少新词元数</translation>
    </message>
</context>
<context>
    <name>Workspace</name>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Sampling lab</source>
        <translation>采样实验室</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Teaching</source>
        <translation>教学</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::AttentionKernelsView</name>
    <message>
        <source>Time both kernels at 512, 2,048 and 8,192 tokens</source>
        <translation>在 512、2,048 和 8,192 个词元上为两种内核计时</translation>
    </message>
    <message>
        <source>One layer's attention over a whole prompt, on random numbers in the loaded model's layout (Stop cancels)</source>
        <translation>对整段提示计算一层注意力，使用随机数和已加载模型的布局（“停止”可取消）</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元数</translation>
    </message>
    <message>
        <source>Reference, ms</source>
        <translation>参考内核，毫秒</translation>
    </message>
    <message>
        <source>Fused, ms</source>
        <translation>融合内核，毫秒</translation>
    </message>
    <message>
        <source>Fused is faster by</source>
        <translation>融合内核快</translation>
    </message>
    <message>
        <source>Score matrix not stored</source>
        <translation>未存储的分数矩阵</translation>
    </message>
    <message>
        <source>Attention kernels: nothing measured</source>
        <translation>注意力内核：尚未测量</translation>
    </message>
    <message>
        <source>Attention at %1 tokens: reference %2 ms, fused %3 ms (%4× faster), outputs differ by %5</source>
        <translation>%1 个词元的注意力：参考 %2 毫秒，融合 %3 毫秒（快 %4 倍），输出相差 %5</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1 倍</translation>
    </message>
    <message>
        <source>%1 MiB per head</source>
        <translation>每个头 %1 MiB</translation>
    </message>
    <message>
        <source>outputs differ by %1 (relative, rounding only)</source>
        <translation>输出相差 %1（相对误差，仅为舍入）</translation>
    </message>
    <message>
        <source>Measured here for one layer of the loaded model: %1 query heads in %2 key/value groups, head size %3.</source>
        <translation>此处测量的是已加载模型的一层：%1 个查询头，分为 %2 个键/值组，头维度 %3。</translation>
    </message>
    <message>
        <source>Attention compares every token's query with the keys of all tokens before it. The reference kernel does it row by row: the scores, their softmax (the probabilities the attention panels draw), then the weighted sum of the values. The fused kernel streams blocks of keys past blocks of queries and keeps, per query, only a running maximum, a running sum and a running weighted sum (an online softmax): the tokens × tokens score matrix never exists, and each block of keys is read once for many queries. The output is the same up to rounding, so InferLens uses the fused kernel (Device menu) and computes the probabilities beside it only for the heads a panel shows.</source>
        <translation>注意力把每个词元的查询与它之前所有词元的键相比较。参考内核逐行计算：先算分数，再做 softmax（注意力面板画出的概率），最后对值加权求和。融合内核让一块块键依次经过一块块查询，每个查询只保留当前最大值、当前指数和与当前加权和（在线 softmax）：词元数 × 词元数的分数矩阵从不出现，每块键只读一次就供许多查询使用。两者输出只差舍入误差，因此 InferLens 使用融合内核（设备菜单），只为面板显示的头另外计算概率。</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::BeamTreePanel</name>
    <message>
        <source>Pruned candidates shown per beam</source>
        <translation>每个束显示的被剪枝候选数</translation>
    </message>
    <message>
        <source>Each beam offers twice the width in candidates at every step; the most probable of those pruned are drawn, dimmed</source>
        <translation>每一步每个束提供束宽两倍的候选；被剪枝者中概率最高的几个以淡色画出</translation>
    </message>
    <message>
        <source>Set Beams above 1 in the sampling parameters to answer by beam search: its tree grows here, step by step.</source>
        <translation>在采样参数中把“束数”设为大于 1，即可用束搜索作答：搜索树会在这里逐步生长。</translation>
    </message>
    <message>
        <source>Beam search with %1 beams: step %2</source>
        <translation>束搜索，%1 个束：第 %2 步</translation>
    </message>
    <message numerus="yes">
        <source>Beam search with %1 beams: %n step(s), at most %2 KV caches at once</source>
        <translation><numerusform>束搜索，%1 个束：%n 步，同时最多 %2 个 KV 缓存</numerusform></translation>
    </message>
    <message>
        <source> (stopped)</source>
        <translation>（已停止）</translation>
    </message>
    <message>
        <source>%1. “%2” — log p %3, score %4%5</source>
        <translation>%1. “%2” — log p %3，得分 %4%5</translation>
    </message>
    <message>
        <source>, unfinished</source>
        <translation>，未完成</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::CacheComparisonBar</name>
    <message>
        <source>Running the sequence again with an exact f32 cache…</source>
        <translation>正在用精确的 f32 缓存重新运行整个序列…</translation>
    </message>
    <message>
        <source>No comparison: %1</source>
        <translation>无法比较：%1</translation>
    </message>
    <message>
        <source>Step %1, %2 cache against an exact one: KL divergence %3 nats, largest probability difference %4; most likely next token %5 (exact cache: %6)</source>
        <translation>第 %1 步，%2 缓存与精确缓存相比：KL 散度 %3 奈特，最大概率差 %4；最可能的下一个词元 %5（精确缓存：%6）</translation>
    </message>
    <message>
        <source>Compare with an exact cache</source>
        <translation>与精确缓存比较</translation>
    </message>
    <message>
        <source>Recomputes the current step with an f32 KV cache that keeps every token and shows how far this step's distribution is from it</source>
        <translation>用保留全部词元的 f32 KV 缓存重新计算当前步，并显示本步分布与它相差多远</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::ChatView</name>
    <message>
        <source>Ask something — Ctrl+Enter sends</source>
        <translation>输入问题——Ctrl+Enter 发送</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <source>Edit last</source>
        <translation>编辑上一条</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>finished: %1</source>
        <translation>已结束：%1</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::ConnectDialog</name>
    <message>
        <source>List models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <source>Remember the key on this computer</source>
        <translation>在这台电脑上记住密钥</translation>
    </message>
    <message>
        <source>Connect to a server</source>
        <translation>连接到服务器</translation>
    </message>
    <message>
        <source>A server with the OpenAI-compatible API: llama-server, vLLM, SGLang</source>
        <translation>提供 OpenAI 兼容 API 的服务器：llama-server、vLLM、SGLang</translation>
    </message>
    <message>
        <source>the server's first model</source>
        <translation>服务器的第一个模型</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>From file…</source>
        <translation>从文件读取…</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>the system's certificate authorities</source>
        <translation>系统的证书颁发机构</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Certificate authorities</source>
        <translation>证书颁发机构</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>PEM files (*.pem *.crt);;All files (*)</source>
        <translation>PEM 文件 (*.pem *.crt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Asking %1 for its models…</source>
        <translation>正在向 %1 询问其模型…</translation>
    </message>
    <message>
        <source>Cannot list the models: %1</source>
        <translation>无法列出模型：%1</translation>
    </message>
    <message>
        <source>API key file</source>
        <translation>API 密钥文件</translation>
    </message>
    <message>
        <source>Cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>1 model served</source>
        <translation>提供 1 个模型</translation>
    </message>
    <message>
        <source>%1 models served</source>
        <translation>提供 %1 个模型</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::EngineWorker</name>
    <message>
        <source>no model is loaded</source>
        <translation>尚未加载模型</translation>
    </message>
    <message>
        <source>%1 needs %2 MB (weights %3 MB + KV cache %4 MB at %5 tokens), but only %6 MB of memory are free; choose a smaller context or close programs</source>
        <translation>%1 需要 %2 MB（权重 %3 MB + %5 个词元的 KV 缓存 %4 MB），但只有 %6 MB 可用内存；请选择更小的上下文或关闭其他程序</translation>
    </message>
    <message>
        <source>Loading was cancelled; the previous model stays.</source>
        <translation>已取消加载；仍使用之前的模型。</translation>
    </message>
    <message>
        <source>superseded</source>
        <translation>已被新的选择取代</translation>
    </message>
    <message>
        <source>there is no generation to branch from</source>
        <translation>没有可以分支的生成</translation>
    </message>
    <message>
        <source>step %1 is not in the last generation</source>
        <translation>第 %1 步不在上一次生成中</translation>
    </message>
    <message>
        <source>token %1 is not in the vocabulary</source>
        <translation>词元 %1 不在词表中</translation>
    </message>
    <message>
        <source>send a message first: the experiment reruns its prompt</source>
        <translation>请先发送一条消息：实验会重新运行它的提示</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>%1; the model runs on the CPU</source>
        <translation>%1；模型改在 CPU 上运行</translation>
    </message>
    <message numerus="yes">
        <source>The conversation is longer than the context of %1 tokens: the oldest %n round(s) are left out of the prompt.</source>
        <translation><numerusform>对话超出了 %1 个词元的上下文：最早的 %n 轮未放入提示。</numerusform></translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>The GPU keeps an f32 KV cache without a sliding window: int8 and f16 caches and windows apply when the model runs on the CPU.</source>
        <translation>GPU 使用不带滑动窗口的 f32 KV 缓存：int8、f16 缓存和滑动窗口只在模型运行于 CPU 时生效。</translation>
    </message>
    <message>
        <source>there is no sampled step to compare yet</source>
        <translation>还没有可比较的采样步</translation>
    </message>
    <message>
        <source>, window %1 + %2 sinks</source>
        <translation>，窗口 %1 + %2 个汇聚词元</translation>
    </message>
    <message>
        <source>the comparison was cancelled</source>
        <translation>比较已取消</translation>
    </message>
    <message>
        <source>beam search keeps every beam's whole KV cache: turn the sliding window off (Device menu) to search with beams</source>
        <translation>束搜索要为每条束保留完整的 KV 缓存：请先关闭滑动窗口（设备菜单）再用束搜索</translation>
    </message>
    <message>
        <source>the server's</source>
        <translation>服务器的</translation>
    </message>
    <message>
        <source>the server's own chat template</source>
        <translation>服务器自己的对话模板</translation>
    </message>
    <message>
        <source>this build has no remote client (INFERLENS_REMOTE=OFF)</source>
        <translation>此构建没有远程客户端（INFERLENS_REMOTE=OFF）</translation>
    </message>
    <message>
        <source>The server does not take these settings, which are left out: %1</source>
        <translation>服务器不接受以下设置，已略去：%1</translation>
    </message>
    <message>
        <source>there is no answer to branch from</source>
        <translation>没有可以分支的回答</translation>
    </message>
    <message>
        <source>The settings changed at token %1 of the answer: the server goes on from there with the new ones.</source>
        <translation>设置在回答的第 %1 个词元处改变：服务器从那里起按新设置继续。</translation>
    </message>
    <message>
        <source>Paused at token %1 of the answer: the request to the server is closed, and Resume asks it to go on from there.</source>
        <translation>已在回答的第 %1 个词元处暂停：发给服务器的请求已关闭，点“继续”会请服务器从那里接着生成。</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::KvCacheMenu</name>
    <message>
        <source>KV cache as f32 (exact)</source>
        <translation>KV 缓存用 f32（精确）</translation>
    </message>
    <message>
        <source>KV cache as f16 (half the memory)</source>
        <translation>KV 缓存用 f16（内存减半）</translation>
    </message>
    <message>
        <source>KV cache as int8 (a quarter, one scale per head and token)</source>
        <translation>KV 缓存用 int8（四分之一，每个头每个词元一个缩放）</translation>
    </message>
    <message>
        <source>Sliding KV cache window: %1 sink tokens + the last %2…</source>
        <translation>滑动 KV 缓存窗口：%1 个汇聚词元 + 最近 %2 个…</translation>
    </message>
    <message>
        <source>Sliding KV cache window: off…</source>
        <translation>滑动 KV 缓存窗口：关闭…</translation>
    </message>
    <message>
        <source>Sliding KV cache window</source>
        <translation>滑动 KV 缓存窗口</translation>
    </message>
    <message>
        <source>The cache keeps the first tokens (the attention sinks) and the most recent ones, and evicts the rest, so generation runs on past the context in constant memory. Keys keep the positions they were computed at. Runs on the CPU.</source>
        <translation>缓存保留最前面的词元（注意力汇聚点）和最近的词元，其余的被逐出，因此生成可以在固定内存中越过上下文长度继续。键保持计算时的位置。在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Slide the KV cache</source>
        <translation>滑动 KV 缓存</translation>
    </message>
    <message>
        <source>Recent tokens kept</source>
        <translation>保留的最近词元数</translation>
    </message>
    <message>
        <source>Sink tokens kept</source>
        <translation>保留的汇聚词元数</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::MainWindow</name>
    <message>
        <source>InferLens</source>
        <translation>InferLens</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open GGUF &amp;file…</source>
        <translation>打开 GGUF 文件(&amp;F)…</translation>
    </message>
    <message>
        <source>Open model &amp;directory…</source>
        <translation>打开模型目录(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Export panel</source>
        <translation>导出面板(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About InferLens</source>
        <translation>关于 InferLens(&amp;A)</translation>
    </message>
    <message>
        <source>Model and run</source>
        <translation>模型与运行</translation>
    </message>
    <message>
        <source>No model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Step token</source>
        <translation>单步（词元）</translation>
    </message>
    <message>
        <source>While paused: run until the next token is chosen</source>
        <translation>暂停时：运行到选出下一个词元</translation>
    </message>
    <message>
        <source>Step layer</source>
        <translation>单步（层）</translation>
    </message>
    <message>
        <source>While paused: run one more layer</source>
        <translation>暂停时：再运行一层</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Export %1</source>
        <translation>导出%1</translation>
    </message>
    <message>
        <source>Images (*.png *.svg *.pdf)</source>
        <translation>图像 (*.png *.svg *.pdf)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>About InferLens</source>
        <translation>关于 InferLens</translation>
    </message>
    <message>
        <source>Tokenization</source>
        <translation>分词</translation>
    </message>
    <message>
        <source>Log colour scale</source>
        <translation>对数色标</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Sampling parameters</source>
        <translation>采样参数</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Double loop</source>
        <translation>双重循环</translation>
    </message>
    <message>
        <source>Open a Hugging Face model directory</source>
        <translation>打开 Hugging Face 模型目录</translation>
    </message>
    <message>
        <source>Open a GGUF model</source>
        <translation>打开 GGUF 模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>cannot load the model: %1</source>
        <translation>无法加载模型：%1</translation>
    </message>
    <message>
        <source>Cannot open the model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <source>%1 tokens; longest UI stall %2 ms</source>
        <translation>%1 个词元；界面最长停顿 %2 毫秒</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Attention of layer %1 recomputed</source>
        <translation>已重新计算第 %1 层的注意力</translation>
    </message>
    <message>
        <source>Attention of layer %1 not recomputed: %2</source>
        <translation>未重新计算第 %1 层的注意力：%2</translation>
    </message>
    <message>
        <source> Context </source>
        <translation> 上下文 </translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Tokens the KV cache holds (auto: the model's context, at most 4,096); applies when a model is opened</source>
        <translation>KV 缓存容纳的词元数（自动：模型的上下文长度，最多 4,096）；打开模型时生效</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop loading; the previous model stays</source>
        <translation>停止加载；仍使用之前的模型</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>mean attention entropy (nats)</source>
        <translation>平均注意力熵（奈特）</translation>
    </message>
    <message>
        <source>The prompt's attention is over the memory budget for every head: the overview counts generated tokens only.</source>
        <translation>提示的注意力超出了全部注意力头的内存预算：概览只统计生成的词元。</translation>
    </message>
    <message>
        <source>Attention overview</source>
        <translation>注意力概览</translation>
    </message>
    <message>
        <source>Generation running</source>
        <translation>正在生成</translation>
    </message>
    <message>
        <source>Stop the generation before opening another model.</source>
        <translation>请先停止生成，再打开其他模型。</translation>
    </message>
    <message>
        <source>needs %1 (weights %2 + KV cache %3 at %4 tokens)</source>
        <translation>需要 %1（权重 %2 + %4 个词元的 KV 缓存 %3）</translation>
    </message>
    <message>
        <source>of %1 free</source>
        <translation>，可用 %1</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 parameters · %4 · context %5 of %6 · %7</source>
        <translation>%1 · %2 · %3 参数 · %4 · 上下文 %5 / %6 · %7</translation>
    </message>
    <message>
        <source>%1 in memory</source>
        <translation>占用内存 %1</translation>
    </message>
    <message>
        <source>Preview of step %1 with the new parameters; they apply from the next token</source>
        <translation>用新参数预览第 %1 步；新参数从下一个词元起生效</translation>
    </message>
    <message>
        <source>Recomputing the attention of layer %1…</source>
        <translation>正在重新计算第 %1 层的注意力…</translation>
    </message>
    <message>
        <source>Open a trace</source>
        <translation>打开轨迹</translation>
    </message>
    <message>
        <source>Traces (*.jsonl *.json);;All files (*)</source>
        <translation>轨迹 (*.jsonl *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open &amp;trace…</source>
        <translation>打开轨迹(&amp;T)…</translation>
    </message>
    <message>
        <source>Export t&amp;race…</source>
        <translation>导出轨迹(&amp;R)…</translation>
    </message>
    <message>
        <source>The last generation's events as JSON lines (the format of inferlens-cli trace)</source>
        <translation>上一次生成的全部事件，JSON Lines 格式（与 inferlens-cli trace 相同）</translation>
    </message>
    <message>
        <source>There is no generation to export yet.</source>
        <translation>还没有可导出的生成。</translation>
    </message>
    <message>
        <source>Cannot write “%1”.</source>
        <translation>无法写入“%1”。</translation>
    </message>
    <message>
        <source>Export the trace</source>
        <translation>导出轨迹</translation>
    </message>
    <message>
        <source>Traces (*.jsonl *.json)</source>
        <translation>轨迹 (*.jsonl *.json)</translation>
    </message>
    <message>
        <source>Stop the generation before opening a trace.</source>
        <translation>请先停止生成，再打开轨迹。</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>Cannot open the trace</source>
        <translation>无法打开轨迹</translation>
    </message>
    <message>
        <source>Replaying %1</source>
        <translation>正在回放 %1</translation>
    </message>
    <message>
        <source>Replayed %1 tokens from %2 (the generation ended: %3)</source>
        <translation>已回放 %2 中的 %1 个词元（生成的结束原因：%3）</translation>
    </message>
    <message>
        <source>A trace holds the attention of the head it recorded only</source>
        <translation>轨迹只包含录制时所选注意力头的注意力</translation>
    </message>
    <message>
        <source>Branching starts from a finished generation: stop this one first</source>
        <translation>分支要从已结束的生成开始：请先停止当前生成</translation>
    </message>
    <message>
        <source>Forcing “%1” at step %2 and continuing</source>
        <translation>在第 %2 步强制选择“%1”并继续生成</translation>
    </message>
    <message>
        <source>“%1” forced at step %2</source>
        <translation>第 %2 步强制为“%1”</translation>
    </message>
    <message>
        <source>the answer</source>
        <translation>原回答</translation>
    </message>
    <message>
        <source>Branches</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>Guided tour</source>
        <translation>导览</translation>
    </message>
    <message>
        <source>Shapes and costs</source>
        <translation>形状与代价</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>Logit 透镜</translation>
    </message>
    <message>
        <source>KV cache experiment</source>
        <translation>KV 缓存实验</translation>
    </message>
    <message>
        <source>cannot start the KV cache experiment</source>
        <translation>无法开始 KV 缓存实验</translation>
    </message>
    <message>
        <source>no panel named %1</source>
        <translation>没有名为 %1 的面板</translation>
    </message>
    <message>
        <source>&amp;Device</source>
        <translation>设备(&amp;D)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>No GPU: %1</source>
        <translation>没有 GPU：%1</translation>
    </message>
    <message>
        <source>&lt;h3&gt;InferLens %1&lt;/h3&gt;&lt;p&gt;Runs a language model locally and shows, token by token, what happens inside: tokenization, attention, the KV cache, sampling.&lt;/p&gt;&lt;p&gt;Qt %2 (built with %3) · compute device: %4&lt;/p&gt;&lt;p&gt;MIT licence. The bundled model inferlens-nano is GPL-3.0-or-later (its training data).&lt;/p&gt;</source>
        <translation>&lt;h3&gt;InferLens %1&lt;/h3&gt;&lt;p&gt;在本地运行语言模型，并逐个词元展示其内部过程：分词、注意力、KV 缓存、采样。&lt;/p&gt;&lt;p&gt;Qt %2（编译时 %3）· 计算设备：%4&lt;/p&gt;&lt;p&gt;MIT 许可证。内置模型 inferlens-nano 采用 GPL-3.0 或更高版本（源于其训练数据）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Model loaded on %1; chat template %2</source>
        <translation>模型已加载到 %1；对话模板 %2</translation>
    </message>
    <message>
        <source>Saved conversation</source>
        <translation>已保存的对话</translation>
    </message>
    <message>
        <source>The conversation could not be saved: %1</source>
        <translation>无法保存对话：%1</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>Most memory the heat map may hold. A longer sequence is shown pooled: each cell the largest weight of a block of positions.</source>
        <translation>热力图最多可占用的内存。更长的序列会以池化方式显示：每个单元格是一块位置中的最大权重。</translation>
    </message>
    <message>
        <source>Beam tree</source>
        <translation>束搜索树</translation>
    </message>
    <message>
        <source>Fused attention on the CPU (tiled, no score matrix)</source>
        <translation>CPU 上的融合注意力（分块计算，不生成分数矩阵）</translation>
    </message>
    <message>
        <source>Reference attention on the CPU (every probability)</source>
        <translation>CPU 上的参考注意力（计算每个概率）</translation>
    </message>
    <message>
        <source>Attention kernels</source>
        <translation>注意力内核</translation>
    </message>
    <message>
        <source>cannot time the attention kernels</source>
        <translation>无法为注意力内核计时</translation>
    </message>
    <message>
        <source>%1 of %2 prompt tokens from the KV cache, first token after %3 ms</source>
        <translation>提示的 %2 个词元中 %1 个来自 KV 缓存，首个词元用时 %3 毫秒</translation>
    </message>
    <message>
        <source>Keep the KV cache between turns (prefill only what is new)</source>
        <translation>在轮次之间保留 KV 缓存（只预填充新内容）</translation>
    </message>
    <message>
        <source>&amp;Guided tour</source>
        <translation>导览(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>Every workspace back to its default layout</source>
        <translation>把每个工作区恢复为默认布局</translation>
    </message>
    <message>
        <source>Every workspace is back to its default layout</source>
        <translation>每个工作区都已恢复为默认布局</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>The panel layout saved by an earlier version was set aside: each workspace starts from its default layout (View menu, Ctrl+1…4)</source>
        <translation>旧版本保存的面板布局已弃用：每个工作区从默认布局开始（视图菜单，Ctrl+1…4）</translation>
    </message>
    <message>
        <source>%1 prompt tokens, first token after %2 ms (network included)</source>
        <translation>提示 %1 个词元，首个词元用时 %2 毫秒（含网络）</translation>
    </message>
    <message>
        <source>&amp;Connect to server…</source>
        <translation>连接到服务器(&amp;C)…</translation>
    </message>
    <message>
        <source>Watch a model that llama-server, vLLM or SGLang serves (the OpenAI-compatible API)</source>
        <translation>观察由 llama-server、vLLM 或 SGLang 提供的模型（OpenAI 兼容 API）</translation>
    </message>
    <message>
        <source>Token arrival</source>
        <translation>词元到达</translation>
    </message>
    <message>
        <source>%1 · %2 at %3 · context %4</source>
        <translation>%1 · %2，位于 %3 · 上下文 %4</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Connected to %1 (%2), model %3</source>
        <translation>已连接到 %1（%2），模型 %3</translation>
    </message>
    <message>
        <source>Stop the answer first</source>
        <translation>请先停止回答</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <source>cannot connect to the server: %1</source>
        <translation>无法连接到服务器：%1</translation>
    </message>
    <message>
        <source>Cannot connect to the server</source>
        <translation>无法连接到服务器</translation>
    </message>
    <message>
        <source>Not available for a model on a server: the API returns tokens and their probabilities, not the layers, attention or hidden states that made them.</source>
        <translation>服务器上的模型无法提供：API 只返回词元及其概率，不返回产生它们的各层、注意力或隐藏状态。</translation>
    </message>
    <message>
        <source>Not available for a model on a server: its KV cache stays on the server.</source>
        <translation>服务器上的模型无法提供：它的 KV 缓存留在服务器上。</translation>
    </message>
    <message>
        <source>Not for a model on a server: its answer can be paused and resumed, not stepped (the server runs the layers)</source>
        <translation>不适用于服务器上的模型：它的回答可以暂停和继续，但不能单步执行（各层在服务器上运行）</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::SamplingControls</name>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <source>Repetition penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <source>Frequency penalty</source>
        <translation>频率惩罚</translation>
    </message>
    <message>
        <source>Presence penalty</source>
        <translation>存在惩罚</translation>
    </message>
    <message>
        <source>Max new tokens</source>
        <translation>最多新词元</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Logit bias</source>
        <translation>Logit 偏置</translation>
    </message>
    <message>
        <source>ID=value, … (-inf bans, +inf forces)</source>
        <translation>ID=值, …（-inf 禁止，+inf 强制）</translation>
    </message>
    <message>
        <source>Banned text</source>
        <translation>禁用文本</translation>
    </message>
    <message>
        <source>never generated; separate with |</source>
        <translation>永不生成；用 | 分隔</translation>
    </message>
    <message>
        <source>Min new tokens</source>
        <translation>最少新词元数</translation>
    </message>
    <message>
        <source>The answer cannot end before this many tokens</source>
        <translation>回答在生成这么多词元之前不能结束</translation>
    </message>
    <message>
        <source>Stop at</source>
        <translation>停止于</translation>
    </message>
    <message>
        <source>ends the answer, not shown; separate with |</source>
        <translation>在此结束回答，不显示；用 | 分隔</translation>
    </message>
    <message>
        <source>Load a grammar</source>
        <translation>加载语法</translation>
    </message>
    <message>
        <source>Grammar</source>
        <translation>语法</translation>
    </message>
    <message>
        <source>Load…</source>
        <translation>加载…</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Grammars and JSON schemas (*.gbnf *.txt *.json);;All files (*)</source>
        <translation>语法与 JSON 模式 (*.gbnf *.txt *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Beams</source>
        <translation>束数</translation>
    </message>
    <message>
        <source>1: sample with the settings below. 2 or more: beam search keeps that many continuations and answers with the most probable; the sampling settings do not apply, and the Beam tree panel shows it</source>
        <translation>1：按下面的设置采样。2 或更多：束搜索保留这么多个续写，并以概率最高者作答；采样设置不再适用，“束搜索树”面板会展示搜索过程</translation>
    </message>
    <message>
        <source>Length penalty</source>
        <translation>长度惩罚</translation>
    </message>
    <message>
        <source>Beam search scores a hypothesis by its log-probability divided by its length to this power: above 0 favours longer answers</source>
        <translation>束搜索给假设打分：对数概率除以长度的该次幂；大于 0 时偏向更长的回答</translation>
    </message>
    <message>
        <source>Not available for a model on a server: beam search needs every hypothesis's scores at each step, which the API does not return</source>
        <translation>服务器上的模型无法使用：束搜索每一步都需要每个候选序列的分数，而 API 不返回这些分数</translation>
    </message>
    <message>
        <source>Not available for a model on a server: the API does not carry it</source>
        <translation>服务器上的模型无法使用：API 不传递此设置</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::SamplingSummaryView</name>
    <message>
        <source>The next token's candidates appear here as the model answers.</source>
        <translation>模型回答时，这里显示下一个词元的候选。</translation>
    </message>
    <message>
        <source>Step %1 · the five likeliest tokens, with the probability each was drawn with</source>
        <translation>第 %1 步 · 最可能的五个词元，以及各自被抽中的概率</translation>
    </message>
    <message>
        <source>◀ chosen</source>
        <translation>◀ 选中</translation>
    </message>
    <message>
        <source> (greedy)</source>
        <translation>（贪心）</translation>
    </message>
    <message>
        <source>Temperature %1%2 · top-p %3 · top-k %4</source>
        <translation>温度 %1%2 · top-p %3 · top-k %4</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Step %1 · the five likeliest tokens, with the model's probability as the server reports it</source>
        <translation>第 %1 步 · 最可能的五个词元，以及服务器报告的模型概率</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::StepCostsView</name>
    <message>
        <source>The stages of the next step appear here as it runs.</source>
        <translation>下一步运行时，它的各个阶段会显示在这里。</translation>
    </message>
    <message>
        <source>Step %1 (%2): %3 token(s) after %4 · per layer %5 and %6 moved · %7 FLOP per byte: %8</source>
        <translation>第 %1 步（%2）：在 %4 个词元之后处理 %3 个 · 每层 %5 运算、搬运 %6 · 每字节 %7 FLOP：%8</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>受内存带宽限制</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>受算力限制</translation>
    </message>
    <message>
        <source> · measured: %1 ms per layer, %2/s and %3/s</source>
        <translation> · 实测：每层 %1 毫秒，%2/s 与 %3/s</translation>
    </message>
    <message>
        <source>stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>bytes moved</source>
        <translation>搬运字节</translation>
    </message>
    <message>
        <source>FLOP / byte</source>
        <translation>FLOP / 字节</translation>
    </message>
    <message>
        <source>per layer</source>
        <translation>每层</translation>
    </message>
    <message>
        <source>once</source>
        <translation>一次</translation>
    </message>
    <message>
        <source>Measuring this machine's read bandwidth and int8 peak…</source>
        <translation>正在测量本机的读取带宽和 int8 峰值…</translation>
    </message>
    <message>
        <source>Against this machine's limit: %1/s in the weight products, %2% of the int8 peak of the %3 kernels (%4/s, %5 threads)</source>
        <translation>对照本机上限：权重乘积 %1/s，为 %3 内核 int8 峰值的 %2%（%4/s，%5 个线程）</translation>
    </message>
    <message>
        <source>Against this machine's limit: %1/s of weights read, %2% of the read bandwidth (%3/s, %4 threads)</source>
        <translation>对照本机上限：每秒读取权重 %1/s，为读取带宽的 %2%（%3/s，%4 个线程）</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::TeachingViews</name>
    <message>
        <source>Experiment: %1</source>
        <translation>实验：%1</translation>
    </message>
    <message>
        <source>New tokens per run</source>
        <translation>每次运行的新词元数</translation>
    </message>
    <message>
        <source>Run with and without the KV cache</source>
        <translation>分别在有/无 KV 缓存时运行</translation>
    </message>
    <message>
        <source>Greedy generation of the last prompt twice: with the cache, then rerunning the whole sequence at every step (Stop cancels)</source>
        <translation>对上一个提示做两次贪心生成：先用缓存，再在每一步重新运行整个序列（“停止”可取消）</translation>
    </message>
    <message>
        <source>%1 key/value groups instead of %2 heads: %3 KiB instead of %4 KiB per token at fp16 (%5 layers × keys and values × %1 × %6 numbers × 2 bytes), %7× less memory.</source>
        <translation>%1 个键/值组而不是 %2 个头：fp16 下每个词元 %3 KiB 而不是 %4 KiB（%5 层 × 键和值 × %1 × %6 个数 × 2 字节），内存少 %7 倍。</translation>
    </message>
    <message>
        <source>KV cache experiment running (Stop cancels)</source>
        <translation>KV 缓存实验进行中（“停止”可取消）</translation>
    </message>
    <message>
        <source>Attention kernels: %1</source>
        <translation>注意力内核：%1</translation>
    </message>
    <message>
        <source>Timing the attention kernels (Stop cancels)</source>
        <translation>正在为注意力内核计时（“停止”可取消）</translation>
    </message>
    <message>
        <source>Compute the logit lens (slower)</source>
        <translation>计算 logit 透镜（较慢）</translation>
    </message>
    <message>
        <source>From the next step on: one LM head per layer and step, so every step is slower</source>
        <translation>从下一步开始：每层每步各算一次 LM 头，所以每一步都更慢</translation>
    </message>
</context>
<context>
    <name>inferlens::gui::TourPanel</name>
    <message>
        <source>Back</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>Open a model to start the tour</source>
        <translation>打开一个模型以开始导览</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::AttentionHeadGridWidget</name>
    <message>
        <source>Layer %1, head %2: %3 tokens, %4 per cell (maximum)
Click to show this head in the heat map</source>
        <translation>第 %1 层，第 %2 头：%3 个词元，每格 %4（最大值）
点击以在热图中显示此头</translation>
    </message>
    <message>
        <source>1 token</source>
        <translation>1 个词元</translation>
    </message>
    <message>
        <source>%1 × %1 tokens</source>
        <translation>%1 × %1 个词元</translation>
    </message>
    <message>
        <source>No attention heads yet</source>
        <translation>尚无注意力头</translation>
    </message>
    <message>
        <source>Layer %1 · %2 heads</source>
        <translation>第 %1 层 · %2 个头</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::AttentionHeatmapWidget</name>
    <message>
        <source>%1 (%2) → %3 (%4): masked (a future token)</source>
        <translation>%1 (%2) → %3 (%4)：已屏蔽（未来的词元）</translation>
    </message>
    <message>
        <source>%1 (%2) → %3 (%4): %5</source>
        <translation>%1 (%2) → %3 (%4)：%5</translation>
    </message>
    <message>
        <source>No attention weights yet</source>
        <translation>尚无注意力权重</translation>
    </message>
    <message>
        <source>Layer %1 · head %2 · %3 queries × %4 keys · %5</source>
        <translation>第 %1 层 · 第 %2 头 · %3 个查询 × %4 个键 · %5</translation>
    </message>
    <message>
        <source>log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <source>linear scale</source>
        <translation>线性刻度</translation>
    </message>
    <message>
        <source>%1 (%2) … %3 (%4) → %5 (%6) … %7 (%8)</source>
        <translation>%1（%2）… %3（%4）→ %5（%6）… %7（%8）</translation>
    </message>
    <message>
        <source>%1: masked (future tokens)</source>
        <translation>%1：已遮蔽（未来的词元）</translation>
    </message>
    <message>
        <source>%1: at most %2 (%3 × %3 positions per cell)</source>
        <translation>%1：最大 %2（每个单元格 %3 × %3 个位置）</translation>
    </message>
    <message>
        <source> · %1 × %1 positions per cell (their maximum), to stay within the %2 memory budget</source>
        <translation> · 每个单元格 %1 × %1 个位置（取其最大值），以保持在 %2 的内存预算之内</translation>
    </message>
    <message>
        <source>%1 (%2) → %3 (%4): evicted from the sliding KV cache, never attended</source>
        <translation>%1 (%2) → %3 (%4)：已被滑动 KV 缓存逐出，从未被关注</translation>
    </message>
    <message>
        <source>%1 (%2) → %3 (%4): outside this layer's window, never attended</source>
        <translation>%1 (%2) → %3 (%4)：在本层的窗口之外，从未被关注</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::AttentionOverviewWidget</name>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>L%1</source>
        <translation>层%1</translation>
    </message>
    <message>
        <source>Layer %1, head %2: %3 %4</source>
        <translation>第 %1 层，第 %2 头：%3 %4</translation>
    </message>
    <message>
        <source>not yet known</source>
        <translation>尚未知晓</translation>
    </message>
    <message>
        <source>No attention summary yet</source>
        <translation>尚无注意力概览</translation>
    </message>
    <message>
        <source>%1 per head · %2 layers × %3 heads</source>
        <translation>每头%1 · %2 层 × %3 头</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::BeamTreeWidget</name>
    <message numerus="yes">
        <source>kept as a beam; %n of its continuations pruned</source>
        <translation><numerusform>保留为束；其续写中有 %n 个被剪枝</numerusform></translation>
    </message>
    <message>
        <source>pruned: other continuations were more probable</source>
        <translation>已剪枝：其他续写的概率更高</translation>
    </message>
    <message>
        <source>finished: a stop token ends this hypothesis</source>
        <translation>已完成：停止词元结束了这个假设</translation>
    </message>
    <message>
        <source>“%1” at step %2
log p = %3 (p = %4)
cumulative log p = %5
%6</source>
        <translation>第 %2 步的“%1”
log p = %3（p = %4）
累计 log p = %5
%6</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>提示</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::BranchCompareWidget</name>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>forced, p = %1</source>
        <translation>强制，p = %1</translation>
    </message>
    <message>
        <source>p = %1</source>
        <translation>p = %1</translation>
    </message>
    <message>
        <source>No branches yet: click a candidate in the sampling panel to force it and continue.</source>
        <translation>还没有分支：在采样面板中点击一个候选词元，即可强制选择它并继续生成。</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::DoubleLoopGridWidget</name>
    <message>
        <source>Time to first token %1 · decode %2 · %3 steps × %4 layers</source>
        <translation>首词元时间 %1 · 解码 %2 · %3 步 × %4 层</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>%1 tokens/s</source>
        <translation>%1 词元/秒</translation>
    </message>
    <message>
        <source>– tokens/s</source>
        <translation>– 词元/秒</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message numerus="yes">
        <source>prefill, %n token(s)</source>
        <translation><numerusform>预填充，%n 个词元</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>decode, %n token(s)</source>
        <translation><numerusform>解码，%n 个词元</numerusform></translation>
    </message>
    <message>
        <source>not run yet</source>
        <translation>尚未运行</translation>
    </message>
    <message>
        <source>Step %1 (%2)
layer %3: %4
whole step: %5</source>
        <translation>第 %1 步（%2）
第 %3 层：%4
整步：%5</translation>
    </message>
    <message>
        <source>No steps yet</source>
        <translation>尚无步骤</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>steps (outer loop) →   layers (inner loop) ↓</source>
        <translation>步（外层循环）→   层（内层循环）↓</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::KvCacheChartWidget</name>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>held</source>
        <translation>已占用</translation>
    </message>
    <message>
        <source>full multi-head cache would need</source>
        <translation>完整多头缓存所需</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>context limit %1</source>
        <translation>上下文上限 %1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>No tokens in the cache yet</source>
        <translation>缓存中尚无词元</translation>
    </message>
    <message>
        <source>%1 of %2 tokens (%3%)</source>
        <translation>%1 / %2 个词元（%3%）</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>held %1, allocated %2</source>
        <translation>已占用 %1，已分配 %2</translation>
    </message>
    <message>
        <source>%1 per token</source>
        <translation>每词元 %1</translation>
    </message>
    <message>
        <source>a full multi-head cache would hold %1 (%2×)</source>
        <translation>完整多头缓存将占用 %1（%2 倍）</translation>
    </message>
    <message>
        <source>all beams' caches</source>
        <translation>所有束的缓存</translation>
    </message>
    <message numerus="yes">
        <source>beam search: %1 caches, %2 more for the other %n beam(s)</source>
        <translation><numerusform>束搜索：%1 个缓存，其余 %n 个束多占 %2</numerusform></translation>
    </message>
    <message>
        <source>sliding window: %1 sink tokens and the last %2; %3 evicted so far</source>
        <translation>滑动窗口：%1 个汇聚词元和最近 %2 个；已逐出 %3 个</translation>
    </message>
    <message>
        <source>stored as %1: %2 saved against f32 (%3%)</source>
        <translation>以 %1 存储：比 f32 节省 %2（%3%）</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::KvExperimentChartWidget</name>
    <message>
        <source>%1 tokens: %2× faster</source>
        <translation>%1 个词元：快 %2 倍</translation>
    </message>
    <message>
        <source> (%1× the FLOPs without)</source>
        <translation>（无缓存时 FLOPs 为 %1 倍）</translation>
    </message>
    <message>
        <source>Run the experiment to compare</source>
        <translation>运行实验以进行比较</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source> · the two runs chose different tokens!</source>
        <translation> · 两次运行选出的词元不同！</translation>
    </message>
    <message>
        <source>with the KV cache</source>
        <translation>使用 KV 缓存</translation>
    </message>
    <message>
        <source>without (each step reruns the sequence)</source>
        <translation>不使用（每步重新运行整个序列）</translation>
    </message>
    <message>
        <source>generated token</source>
        <translation>生成的词元</translation>
    </message>
    <message>
        <source>milliseconds</source>
        <translation>毫秒</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::LogitLensWidget</name>
    <message>
        <source>‖h‖</source>
        <translation>‖h‖</translation>
    </message>
    <message>
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <source>#%1</source>
        <translation>#%1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::SamplingChartWidget</name>
    <message>
        <source>Sampling: no step yet</source>
        <translation>采样：尚无步骤</translation>
    </message>
    <message>
        <source>raw</source>
        <translation>原始</translation>
    </message>
    <message>
        <source>after penalties</source>
        <translation>惩罚后</translation>
    </message>
    <message>
        <source>after temperature</source>
        <translation>温度后</translation>
    </message>
    <message>
        <source>final (top-k, top-p, min-p)</source>
        <translation>最终（top-k、top-p、min-p）</translation>
    </message>
    <message>
        <source>cumulative mass</source>
        <translation>累积概率</translation>
    </message>
    <message>
        <source>candidates, best first</source>
        <translation>候选词元（由高到低）</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>cumulative</source>
        <translation>累积</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>选中</translation>
    </message>
    <message>
        <source> cut off</source>
        <translation> 截断</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>entropy (nats)</source>
        <translation>熵（奈特）</translation>
    </message>
    <message>
        <source>chosen p</source>
        <translation>选中概率</translation>
    </message>
    <message>
        <source>entropy</source>
        <translation>熵</translation>
    </message>
    <message>
        <source>chosen token's probability</source>
        <translation>选中词元的概率</translation>
    </message>
    <message>
        <source>Step %1 · entropy %2 nats · chosen p = %3 · %4 kept, nucleus mass %5</source>
        <translation>第 %1 步 · 熵 %2 奈特 · 选中概率 = %3 · 保留 %4 个，核概率质量 %5</translation>
    </message>
    <message>
        <source> · chosen token not among the %1 shown</source>
        <translation> · 选中的词元不在显示的 %1 个之中</translation>
    </message>
    <message>
        <source>“%1” %2% (%3)</source>
        <translation>“%1” %2%（%3）</translation>
    </message>
    <message>
        <source>Masked by the logit processors: %1</source>
        <translation>被 logit 处理器屏蔽：%1</translation>
    </message>
    <message>
        <source>The grammar allowed %1 tokens</source>
        <translation>语法允许了 %1 个词元</translation>
    </message>
    <message>
        <source>rest of the vocabulary (split unknown)</source>
        <translation>词表其余部分（分布未知）</translation>
    </message>
    <message>
        <source>rest</source>
        <translation>其余</translation>
    </message>
    <message>
        <source>Step %1 · the server's top %2 hold %3 of the probability, the rest (%4) is unknown · chosen p = %5 (before the server's sampling)</source>
        <translation>第 %1 步 · 服务器给出的前 %2 个占概率 %3，其余（%4）未知 · 选中 p = %5（服务器采样之前）</translation>
    </message>
    <message>
        <source>Step %1 · preview: re-shaped among the server's top %2 only (they hold %3 of the probability; the rest is left out) · %4 kept</source>
        <translation>第 %1 步 · 预览：只在服务器给出的前 %2 个之中重新整形（它们占概率 %3；其余略去）· 保留 %4 个</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::TokenArrivalWidget</name>
    <message>
        <source>wait between tokens (ms)</source>
        <translation>词元间等待（毫秒）</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Token arrival: the waits between a server's tokens appear here as it answers</source>
        <translation>词元到达：服务器回答时，各词元之间的等待时间显示在这里</translation>
    </message>
    <message>
        <source>Time to first token %1 ms · between tokens: median %2 ms (dashed), 95th percentile %3 ms · %4 tokens</source>
        <translation>首个词元 %1 毫秒 · 词元之间：中位数 %2 毫秒（虚线），第 95 百分位 %3 毫秒 · %4 个词元</translation>
    </message>
</context>
<context>
    <name>inferlens::widgets::TokenStripWidget</name>
    <message>
        <source>Position %1</source>
        <translation>位置 %1</translation>
    </message>
    <message>
        <source>id %1</source>
        <translation>ID %1</translation>
    </message>
    <message>
        <source>piece “%1”</source>
        <translation>片段“%1”</translation>
    </message>
    <message>
        <source>bytes %1</source>
        <translation>字节 %1</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>special token</source>
        <translation>特殊词元</translation>
    </message>
    <message>
        <source>byte fallback</source>
        <translation>字节回退</translation>
    </message>
    <message>
        <source>generated</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>prompt</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>No tokens yet</source>
        <translation>尚无词元</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Chat with a local language model and watch what happens inside.</source>
        <translation>与本地语言模型对话，观察其内部发生的一切。</translation>
    </message>
    <message>
        <source>Model to open.</source>
        <translation>要打开的模型。</translation>
    </message>
    <message>
        <source>Send TEXT as the user's chat message.</source>
        <translation>将 TEXT 作为用户的聊天消息发送。</translation>
    </message>
    <message>
        <source>Tokens to generate at most.</source>
        <translation>最多生成的词元数。</translation>
    </message>
    <message>
        <source>Exit when the generation ends (0 on success).</source>
        <translation>生成结束时退出（成功时返回 0）。</translation>
    </message>
    <message>
        <source>Replay a trace (JSON lines) instead of loading a model.</source>
        <translation>回放轨迹（JSON Lines），不加载模型。</translation>
    </message>
    <message>
        <source>Bring these docks (object names, comma-separated) to the front before the screenshot.</source>
        <translation>截图前把这些停靠面板（对象名，逗号分隔）调到前面。</translation>
    </message>
    <message>
        <source>Compute the logit lens.</source>
        <translation>计算 logit 透镜。</translation>
    </message>
    <message>
        <source>After the generation, run the KV cache on/off experiment with N tokens.</source>
        <translation>生成结束后，用 N 个词元运行 KV 缓存开/关实验。</translation>
    </message>
    <message>
        <source>Show step N of the guided tour.</source>
        <translation>显示导览的第 N 步。</translation>
    </message>
    <message>
        <source>Run the model on cpu, cuda or cuda:N (default: the Device menu's last choice).</source>
        <translation>在 cpu、cuda 或 cuda:N 上运行模型（默认：“设备”菜单上次的选择）。</translation>
    </message>
    <message>
        <source>Answer by beam search with N beams.</source>
        <translation>用 N 个束的束搜索作答。</translation>
    </message>
    <message>
        <source>The answer follows this grammar (a .json file: a JSON schema).</source>
        <translation>回答遵循此语法（.json 文件：JSON 模式）。</translation>
    </message>
    <message>
        <source>After the generation, time the fused and the reference attention kernels.</source>
        <translation>生成结束后，为融合内核和参考内核计时。</translation>
    </message>
    <message>
        <source>Store the CPU's KV cache as f32, f16 or int8 (this run).</source>
        <translation>CPU 的 KV 缓存以 f32、f16 或 int8 存储（仅本次运行）。</translation>
    </message>
    <message>
        <source>A sliding KV cache of the last N tokens (0: none; this run).</source>
        <translation>保留最近 N 个词元的滑动 KV 缓存（0：不用；仅本次运行）。</translation>
    </message>
    <message>
        <source>The first tokens a sliding KV cache keeps (default 4).</source>
        <translation>滑动 KV 缓存保留的最前面的词元数（默认 4）。</translation>
    </message>
    <message>
        <source>After the generation, compare the last step with an exact KV cache.</source>
        <translation>生成结束后，把最后一步与精确的 KV 缓存比较。</translation>
    </message>
    <message>
        <source>no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).
A --screenshot run needs none: start it with QT_QPA_PLATFORM=offscreen.
inferlens-cli (info, tokenize, chat, ...) works without a display.</source>
        <translation>没有可以打开窗口的显示器（DISPLAY 和 WAYLAND_DISPLAY 都未设置）。
--screenshot 运行不需要显示器：用 QT_QPA_PLATFORM=offscreen 启动。
inferlens-cli（info、tokenize、chat 等）无需显示器即可使用。</translation>
    </message>
    <message>
        <source>Type TEXT into the chat's input, ready to send (not sent).</source>
        <translation>把 TEXT 填入对话输入框，待发送（不会发出）。</translation>
    </message>
    <message>
        <source>Open this workspace: chat, sampling, attention or teaching (default: the last one used).</source>
        <translation>打开此工作区：chat、sampling、attention 或 teaching（默认：上次使用的）。</translation>
    </message>
    <message>
        <source>Open the window at this size, e.g. 1366x768 (default: fitted to the screen).</source>
        <translation>以此尺寸打开窗口，例如 1366x768（默认：适应屏幕）。</translation>
    </message>
    <message>
        <source>After generation, save the window as PNG, at the size it has (--window-size to choose).</source>
        <translation>生成结束后，按窗口当前尺寸保存为 PNG（用 --window-size 选择尺寸）。</translation>
    </message>
    <message>
        <source>Interface language: en, zh_CN or system.</source>
        <translation>界面语言：en、zh_CN 或 system。</translation>
    </message>
    <message>
        <source>--workspace: no workspace '%1'; choose one of %2</source>
        <translation>--workspace：没有名为“%1”的工作区；请从 %2 中选择</translation>
    </message>
    <message>
        <source>--window-size: '%1' is not a window size; give WIDTHxHEIGHT in pixels, from 320x240 to 8192x8192, e.g. 1366x768</source>
        <translation>--window-size：“%1”不是窗口尺寸；请给出以像素计的 宽x高，从 320x240 到 8192x8192，例如 1366x768</translation>
    </message>
    <message>
        <source>--%1 needs a number of tokens, not '%2'</source>
        <translation>--%1 需要一个词元数，而不是“%2”</translation>
    </message>
    <message>
        <source>Connect to a server with the OpenAI-compatible API (llama-server, vLLM, SGLang) instead of loading a model; the API key, if any, from INFERLENS_API_KEY.</source>
        <translation>连接到提供 OpenAI 兼容 API 的服务器（llama-server、vLLM、SGLang），而不加载模型；API 密钥（如有）取自 INFERLENS_API_KEY。</translation>
    </message>
    <message>
        <source>The model to use on the --remote server (default: its first).</source>
        <translation>--remote 服务器上要使用的模型（默认：第一个）。</translation>
    </message>
</context>
</TS>