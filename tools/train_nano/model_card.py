"""Writes the bundled model's card (README.md beside the weights) from metrics.json's figures and
the settings of the scripts that made the model."""
import prepare_data
import train


def _quote(text):
    return "\n".join("> " + line if line else ">" for line in text.split("\n"))


def write_model_card(path, c, m):
    recited = sum(r["first_line"] == r["greedy_first_line"] for r in m["recitations"])
    recitation_rows = "\n".join(
        f"| 《{r['title']}》 | {r['first_line']} | {r['greedy_first_line']} | "
        f"{'yes' if r['first_line'] == r['greedy_first_line'] else 'no'} |"
        for r in m["recitations"])
    samples = []
    for question in dict.fromkeys(s["question"] for s in m["samples"]):
        samples.append(f"**问：{question}**\n")
        for s in (s for s in m["samples"] if s["question"] == question):
            samples.append(f"temperature {s['temperature']}:\n\n{_quote(s['answer'])}\n")
    minutes = m["training_seconds"] / 60
    text = f"""# inferlens-nano

A miniature ChatGLM2 that InferLens trains itself (`tools/train_nano/train.sh`) and ships as its
default model, so that the attention, KV-cache and sampling views show a model that has learned
something. It has exactly ChatGLM2-6B's architecture, file layout (`config.json`,
`model.safetensors`, `tokenizer.model`), tensor names and chat template; only the sizes differ.

## Licence

Weights: **GPL-3.0-or-later**, because most of the training text comes from Debian's `fortunes-zh`
(GPL-3.0+). The English fortunes (`fortunes`, `fortunes-min`) are under the BSD-style licence of
fortune-mod. The code that trained it is MIT, like the rest of InferLens.

## Data

All from Debian packages, read from `/usr/share/games/fortunes` with terminal colour codes removed
(`tools/train_nano/prepare_data.py`):

| package | file | used as |
|---|---|---|
| fortunes-zh | tang300 (Tang poems) | plain text; 问：《title》→ poem; 问：《title》的作者是谁？→ author; 问：背一首 author 的诗。→ title and poem |
| fortunes-zh | song100 (Song ci) | as tang300 |
| fortunes-zh | chinese ({prepare_data.CHINESE_MAX_ENTRIES} short sayings, Debian manual excerpts left out) | plain text; 问：说一句格言。→ saying |
| fortunes | fortunes | plain text; 问：Tell me a fortune. → fortune |
| fortunes-min | riddles | as fortunes |

Questions use ChatGLM2's template (`[Round 1]\\n\\n问：…\\n\\n答：…`);
{train.TWO_ROUND_FRACTION:.0%} of them carry an earlier round as history. Poem documents are seen
twice an epoch, the rest once. {m['train_documents']} training documents; {m['heldout_documents']}
source documents (about {prepare_data.HELDOUT_PERCENT} %, chosen by a hash of their text) are held
out, and nothing built from them is trained on.

## Tokenizer

sentencepiece BPE, {m['pieces']} pieces with byte fallback (ids 3–258 are the byte pieces, as in
ChatGLM2), identity normalization (full-width punctuation kept), `\\n` as the byte piece `<0x0A>`.
ChatGLM's specials are not pieces: they follow the last piece by id, `[MASK]` = {m['pieces']},
`[gMASK]` = {m['pieces'] + 1}, `[sMASK]` = {m['pieces'] + 2}, `sop` = {m['pieces'] + 3},
`eop` = {m['pieces'] + 4}; every input starts with `[gMASK] sop`; generation stops at `</s>` (id 2).
The output layer is padded to {m['padded_vocab_size']} rows.

## Architecture

| | inferlens-nano | ChatGLM2-6B |
|---|---|---|
| layers | {c.num_layers} | 28 |
| hidden size | {c.hidden_size} | 4096 |
| attention heads × head dim | {c.num_heads} × {c.head_dim} | 32 × 128 |
| KV groups (multi-query) | {c.kv_groups} | 2 |
| FFN (SwiGLU) | {c.ffn_hidden_size} | 13696 |
| vocabulary (padded) | {m['padded_vocab_size']} | 65024 |
| context (`seq_length`) | {c.seq_length} (trained on documents of at most 256 tokens) | 32768 |
| parameters | {m['parameters']:,} | 6.2 B |
| weights | F16 | F16 |

Pre-RMSNorm blocks, fused QKV projection with bias, RoPE on the first half of each head in adjacent
pairs, untied output layer.

## Training

`tools/train_nano/train.sh` (data, tokenizer, training, export) on a 2-core CPU: {m['training_steps']}
steps of {train.ROWS_PER_STEP} × {train.ROW_TOKENS} tokens ({train.EPOCHS} epochs),
{m['training_tokens'] / 1e6:.2f} M loss tokens, {minutes:.0f} minutes of training with PyTorch
{m['torch_version']}; AdamW (weight decay 0.1), peak learning rate {train.PEAK_LR:g} with cosine
decay, dropout {train.DROPOUT:g} and label smoothing {train.LABEL_SMOOTHING:g} (without them the
model memorizes its data and its held-out loss climbs above the unigram baseline's; the training
curve below is the smoothed, dropped-out training loss, hence above the plain figure in the table).

![training curve](training_curve.png)

| | loss (nats per token) |
|---|---|
| training plain text | {m['train_plain_text_loss']:.3f} |
| **held-out** ({m['heldout_tokens']} tokens) | **{m['heldout_loss']:.3f}** |
| unigram baseline on the held-out tokens | {m['unigram_baseline_loss']:.3f} |

(Computed from the F16 weights as shipped; InferLens's tests recompute the held-out loss with the
engine and check it against this table.)

## Reciting (greedy)

{recited} of {len(m['recitations'])} first lines reproduced exactly, for titles chosen before
training:

| question | first line | model's first line | exact |
|---|---|---|---|
{recitation_rows}

## Sample answers

Greedy at temperature 0, otherwise plain softmax sampling (seed {m['sample_seed']}), by the
training code; `inferlens-cli chat --temperature 0` gives the same greedy answers:

{chr(10).join(samples)}
## What it can and cannot do

It recites many of the Tang and Song poems it was trained on from their titles (from the first
line on it mostly stays on the right poem), names their authors, and produces fortune-cookie English
and Chinese sayings in the right template. It cannot hold a conversation, answer questions outside
these forms, or reason; at higher temperatures it quickly mixes scripts and poems, and it sometimes
runs past its answer into a made-up next round (`[Round 2] …`), which shows the template it was
trained on. Its English is spelled almost letter by letter (the tokenizer's pieces are mostly
Chinese characters). Treat it as a specimen for looking inside a transformer, not as an assistant.
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
