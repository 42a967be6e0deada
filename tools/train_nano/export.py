#!/usr/bin/python3
"""Turns the trained checkpoint into the bundled model and the data its tests compare against.

Writes, into the model directory (resources/models/inferlens-nano):
  config.json          the keys of ChatGLM2-6B's config.json, with the nano sizes
  model.safetensors    F16 weights under the HF ChatGLM2 tensor names
  tokenizer.model      the sentencepiece model
  metrics.json         losses, baseline, sizes and timings quoted by the model card
  training_curve.png   train and held-out loss against tokens seen
  README.md            the model card
and into the test data directory (tests/data/nano):
  golden.json + golden_logits.npy   prompts, their token ids and the logits at every position
  heldout.jsonl                     the held-out documents
  recitations.json                  titles asked for and the first lines of their poems

Everything is computed from the F16 weights as written (read back and widened to f32), so the
engine, which reads the same file, should agree to float rounding.
"""
import csv
import json
import os
import shutil
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

from glm_model import ChatGlm, GlmConfig
from nano_tokens import EOS, NanoTokenizer, chat_prompt, document_ids
from train import heldout_documents, heldout_loss, load_jsonl

# Chosen before training as well-known poems whose titles name one training poem each.
RECITATION_TITLES = ["夜思", "春晓", "登鹳雀楼", "相思", "江雪", "春望", "黄鹤楼", "登高", "枫桥夜泊",
                     "游子吟"]
GOLDEN_PROMPTS = [
    chat_prompt([], "《春晓》"),
    chat_prompt([], "Tell me a fortune."),
    chat_prompt([("《江雪》的作者是谁？", "柳宗元")], "背一首柳宗元的诗。"),
    "床前明月光，",
]
SAMPLE_QUESTIONS = ["《夜思》", "背一首李白的诗。", "《春晓》的作者是谁？", "Tell me a fortune.",
                    "说一句格言。", "《长江》"]
SAMPLE_TEMPERATURES = [0.0, 0.7, 1.2]
SAMPLE_SEED = 7
MAX_NEW_TOKENS = 120


def write_safetensors(path, tensors):
    """safetensors: u64 header size, JSON header {name: dtype, shape, data_offsets}, data."""
    header, offset, blobs = {}, 0, []
    for name, tensor in tensors.items():
        data = tensor.contiguous().numpy().tobytes()
        header[name] = {"dtype": "F16", "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    header["__metadata__"] = {"format": "pt"}
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(encoded)))
        f.write(encoded)
        for blob in blobs:
            f.write(blob)


def chatglm2_config(c, tokenizer):
    """ChatGLM2-6B's config.json keys with the nano model's values."""
    return {
        "_name_or_path": "inferlens-nano",
        "model_type": "chatglm",
        "architectures": ["ChatGLMModel"],
        "add_bias_linear": False,
        "add_qkv_bias": True,
        "apply_query_key_layer_scaling": True,
        "apply_residual_connection_post_layernorm": False,
        "attention_dropout": 0.0,
        "attention_softmax_in_fp32": True,
        "bias_dropout_fusion": True,
        "ffn_hidden_size": c.ffn_hidden_size,
        "fp32_residual_connection": False,
        "hidden_dropout": 0.0,
        "hidden_size": c.hidden_size,
        "kv_channels": c.head_dim,
        "layernorm_epsilon": c.norm_eps,
        "multi_query_attention": True,
        "multi_query_group_num": c.kv_groups,
        "num_attention_heads": c.num_heads,
        "num_layers": c.num_layers,
        "original_rope": True,
        "padded_vocab_size": c.vocab_size,
        "post_layer_norm": True,
        "rmsnorm": True,
        "seq_length": c.seq_length,
        "use_cache": True,
        "torch_dtype": "float16",
        "transformers_version": "4.27.1",
        "tie_word_embeddings": False,
        "eos_token_id": EOS,
        "pad_token_id": 0,
    }


def generate(model, tokenizer, prompt_ids, temperature, generator):
    """Greedy at temperature 0, otherwise plain softmax sampling; stops at </s>."""
    ids = list(prompt_ids)
    with torch.no_grad():
        for _ in range(MAX_NEW_TOKENS):
            logits = model(torch.tensor([ids]))[0, -1, :tokenizer.token_count].float()
            if temperature == 0.0:
                token = int(logits.argmax())
            else:
                probs = F.softmax(logits / temperature, dim=-1)
                token = int(torch.multinomial(probs, 1, generator=generator))
            if token == EOS:
                break
            ids.append(token)
    return tokenizer.decode(ids[len(prompt_ids):])


def ask(model, tokenizer, question, temperature=0.0, generator=None):
    prompt = [tokenizer.gmask, tokenizer.sop] + tokenizer.encode(chat_prompt([], question))
    return generate(model, tokenizer, prompt, temperature, generator)


def unigram_baseline(tokenizer, train_docs, heldout):
    """Cross-entropy of the held-out tokens under training-token frequencies (add-one smoothing
    over the padded vocabulary): the loss to beat by using any context at all."""
    counts = np.ones(tokenizer.padded_vocab_size)
    for doc in train_docs:
        ids = document_ids(tokenizer, chat_prompt([], doc["prompt"]) if doc["prompt"] else "",
                           doc["answer"])
        np.add.at(counts, ids[2:], 1)
    log_probs = np.log(counts / counts.sum())
    targets = [t for doc in heldout for t in doc[2:]]
    return float(-log_probs[targets].mean()), len(targets)


def plot_curve(curve, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tokens = [int(r["tokens"]) / 1e6 for r in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(tokens, [float(r["train_loss"]) for r in curve], label="train (dropout, label smoothing; mean of 100 steps)")
    ax.plot(tokens, [float(r["heldout_loss"]) for r in curve], label="held-out")
    ax.set_xlabel("training tokens (millions)")
    ax.set_ylabel("loss (nats per token)")
    ax.set_title("inferlens-nano")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def main(work_dir, model_dir, test_dir):
    torch.set_num_threads(os.cpu_count() or 1)
    os.makedirs(model_dir, exist_ok=True)
    os.makedirs(test_dir, exist_ok=True)
    tokenizer = NanoTokenizer(os.path.join(work_dir, "tokenizer.model"))
    checkpoint = torch.load(os.path.join(work_dir, "checkpoint.pt"))
    config = GlmConfig(**checkpoint["config"])

    halves = {name: p.detach().to(torch.float16) for name, p in checkpoint["model"].items()}
    write_safetensors(os.path.join(model_dir, "model.safetensors"), halves)
    with open(os.path.join(model_dir, "config.json"), "w") as f:
        json.dump(chatglm2_config(config, tokenizer), f, indent=2)
        f.write("\n")
    shutil.copyfile(os.path.join(work_dir, "tokenizer.model"),
                    os.path.join(model_dir, "tokenizer.model"))

    model = ChatGlm(config)
    model.load_state_dict({name: h.float() for name, h in halves.items()})
    model.eval()

    # Golden logits at every position of a few prompts.
    golden, rows = [], []
    for text in GOLDEN_PROMPTS:
        ids = [tokenizer.gmask, tokenizer.sop] + tokenizer.encode(text)
        with torch.no_grad():
            rows.append(model(torch.tensor([ids]))[0].float().numpy())
        golden.append({"text": text, "ids": ids})
    with open(os.path.join(test_dir, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
    np.save(os.path.join(test_dir, "golden_logits.npy"), np.concatenate(rows).astype(np.float32))

    # Held-out loss, the unigram baseline and recitations.
    heldout_docs = load_jsonl(os.path.join(work_dir, "heldout.jsonl"))
    shutil.copyfile(os.path.join(work_dir, "heldout.jsonl"), os.path.join(test_dir, "heldout.jsonl"))
    heldout = heldout_documents(tokenizer, heldout_docs)
    train_docs = load_jsonl(os.path.join(work_dir, "train.jsonl"))
    baseline, heldout_tokens = unigram_baseline(tokenizer, train_docs, heldout)
    held = heldout_loss(model, heldout)
    train_loss = heldout_loss(model, [document_ids(tokenizer, "", d["answer"])
                                      for d in train_docs if not d["prompt"]])

    bodies = {d["prompt"][1:-1]: d["answer"] for d in train_docs
              if d["prompt"].startswith("《") and d["prompt"].endswith("》")}
    recitations = []
    for title in RECITATION_TITLES:
        first_line = bodies[title].split("\n")[0]
        answer = ask(model, tokenizer, f"《{title}》")
        recitations.append({"title": title, "first_line": first_line,
                            "greedy_first_line": answer.split("\n")[0]})
    with open(os.path.join(test_dir, "recitations.json"), "w", encoding="utf-8") as f:
        json.dump([{"title": r["title"], "first_line": r["first_line"]} for r in recitations], f,
                  ensure_ascii=False, indent=1)

    with open(os.path.join(work_dir, "curve.csv")) as f:
        curve = list(csv.DictReader(f))
    plot_curve(curve, os.path.join(model_dir, "training_curve.png"))

    generator = torch.Generator().manual_seed(SAMPLE_SEED)
    samples = [{"question": q, "temperature": t, "answer": ask(model, tokenizer, q, t, generator)}
               for q in SAMPLE_QUESTIONS for t in SAMPLE_TEMPERATURES]

    parameters = sum(p.numel() for p in model.parameters())
    metrics = {
        "parameters": parameters,
        "pieces": tokenizer.piece_count,
        "padded_vocab_size": config.vocab_size,
        "training_steps": checkpoint["step"],
        "training_tokens": int(curve[-1]["tokens"]),
        "training_seconds": round(checkpoint["seconds"]),
        "torch_version": torch.__version__,
        "train_documents": len(train_docs),
        "heldout_documents": len(heldout_docs),
        "heldout_tokens": heldout_tokens,
        "train_plain_text_loss": round(train_loss, 4),
        "heldout_loss": round(held, 4),
        "unigram_baseline_loss": round(baseline, 4),
        "recitations": recitations,
        "sample_seed": SAMPLE_SEED,
        "samples": samples,
    }
    with open(os.path.join(model_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, ensure_ascii=False, indent=1)
        f.write("\n")
    from model_card import write_model_card
    write_model_card(os.path.join(model_dir, "README.md"), config, metrics)
    print(f"held-out loss {held:.4f} (unigram baseline {baseline:.4f}); recited "
          f"{sum(r['first_line'] == r['greedy_first_line'] for r in recitations)}/"
          f"{len(recitations)} first lines")


if __name__ == "__main__":
    main(*sys.argv[1:4])
