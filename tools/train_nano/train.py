#!/usr/bin/python3
"""Trains the nano ChatGLM2 on the prepared corpus (prepare_data.py, train_tokenizer.py).

Documents are packed into rows of ROW_TOKENS without crossing each other's attention (see
glm_model.py); the loss is the mean next-token cross-entropy over every document token after sop.
Writes checkpoint.pt and curve.csv (step, seconds, tokens, train loss, held-out loss) to the work
directory. Deterministic for a given torch build: one seed for data order and initialisation.
"""
import csv
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

from glm_model import ChatGlm, GlmConfig
from nano_tokens import NanoTokenizer, chat_prompt, document_ids

SEED = 1234
ROW_TOKENS = 256
ROWS_PER_STEP = 16
EPOCHS = int(os.environ.get("NANO_EPOCHS", "8"))
# Regularisation: without it the model memorizes its data and becomes so sure of itself that its
# held-out loss climbs past the unigram baseline's. Label smoothing caps that confidence; greedy
# answers (the argmax) are unaffected.
DROPOUT = 0.1
LABEL_SMOOTHING = 0.1
PEAK_LR = 3e-3
WARMUP_STEPS = 60
EVAL_EVERY = 100
TWO_ROUND_FRACTION = 0.15


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def training_documents(tokenizer, docs, rng):
    """Token ids of every training document; some questions get an earlier round as history so
    that the second round of a chat looks familiar too."""
    questions = [d for d in docs if d["prompt"]]
    result = []
    for doc in (d for d in docs for _ in range(d["repeat"])):
        if doc["prompt"]:
            history = []
            if rng.random() < TWO_ROUND_FRACTION:
                other = rng.choice(questions)
                history = [(other["prompt"], other["answer"])]
            prompt = chat_prompt(history, doc["prompt"])
        else:
            prompt = ""
        result.append(document_ids(tokenizer, prompt, doc["answer"])[:ROW_TOKENS])
    return result


def heldout_documents(tokenizer, heldout):
    return [document_ids(tokenizer, "", d["text"]) for d in heldout]


def pack_rows(documents, rng):
    """Shuffled documents packed greedily into rows: (ids, targets, positions, document index).
    targets[j] is the token that position j predicts; −100 where nothing is predicted (padding,
    [gMASK] → sop, after </s>)."""
    order = list(range(len(documents)))
    rng.shuffle(order)
    rows, current = [], []
    for index in order:
        if sum(len(documents[i]) for i in current) + len(documents[index]) > ROW_TOKENS:
            rows.append(current)
            current = []
        current.append(index)
    if current:
        rows.append(current)
    batches = []
    for row in rows:
        ids, targets, positions, owners = [], [], [], []
        for number, index in enumerate(row):
            doc = documents[index]
            ids += doc
            targets += [-100] + doc[2:] + [-100]
            positions += list(range(len(doc)))
            owners += [number] * len(doc)
        pad = ROW_TOKENS - len(ids)
        batches.append((ids + [0] * pad, targets + [-100] * pad, positions + [0] * pad,
                        owners + [len(row)] * pad))
    return batches


def heldout_loss(model, documents):
    """Mean next-token loss over the tokens after sop of every document (dropout off; the model's
    mode is restored afterwards)."""
    was_training = model.training
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for doc in documents:
            ids = torch.tensor([doc])
            logits = model(ids)[0, 1:-1]
            total += F.cross_entropy(logits.float(), ids[0, 2:], reduction="sum").item()
            count += len(doc) - 2
    model.train(was_training)
    return total / count


def learning_rate(step, total_steps):
    if step < WARMUP_STEPS:
        return PEAK_LR * (step + 1) / WARMUP_STEPS
    progress = (step - WARMUP_STEPS) / max(1, total_steps - WARMUP_STEPS)
    return PEAK_LR * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def main(work_dir):
    torch.manual_seed(SEED)
    torch.set_num_threads(os.cpu_count() or 1)
    rng = random.Random(SEED)
    tokenizer = NanoTokenizer(os.path.join(work_dir, "tokenizer.model"))
    docs = load_jsonl(os.path.join(work_dir, "train.jsonl"))
    heldout = heldout_documents(tokenizer, load_jsonl(os.path.join(work_dir, "heldout.jsonl")))
    config = GlmConfig(vocab_size=tokenizer.padded_vocab_size, dropout=DROPOUT)
    model = ChatGlm(config)
    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=PEAK_LR, betas=(0.9, 0.95))
    epochs = [pack_rows(training_documents(tokenizer, docs, rng), rng) for _ in range(EPOCHS)]
    steps_per_epoch = [math.ceil(len(rows) / ROWS_PER_STEP) for rows in epochs]
    total_steps = sum(steps_per_epoch)
    print(f"{sum(p.numel() for p in model.parameters()):,} parameters; {EPOCHS} epochs of "
          f"{steps_per_epoch[0]} steps × {ROWS_PER_STEP} rows × {ROW_TOKENS} tokens", flush=True)

    curve_path = os.path.join(work_dir, "curve.csv")
    with open(curve_path, "w", newline="") as curve_file:
        curve = csv.writer(curve_file)
        curve.writerow(["step", "seconds", "tokens", "train_loss", "heldout_loss"])
        start, step, tokens, recent = time.time(), 0, 0, []
        for rows in epochs:
            for first in range(0, len(rows), ROWS_PER_STEP):
                batch = rows[first:first + ROWS_PER_STEP]
                ids, targets, positions, owners = (torch.tensor(list(column)) for column in
                                                   zip(*batch))
                for group in optimizer.param_groups:
                    group["lr"] = learning_rate(step, total_steps)
                logits = model(ids, positions, owners)
                loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100,
                                       label_smoothing=LABEL_SMOOTHING)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                step += 1
                tokens += int((targets != -100).sum())
                recent.append(loss.item())
                if step % EVAL_EVERY == 0 or step == total_steps:
                    train_loss = sum(recent) / len(recent)
                    recent = []
                    held = heldout_loss(model, heldout)
                    elapsed = time.time() - start
                    curve.writerow([step, f"{elapsed:.1f}", tokens, f"{train_loss:.4f}",
                                    f"{held:.4f}"])
                    curve_file.flush()
                    print(f"step {step}/{total_steps}  {elapsed:7.0f} s  train {train_loss:.3f}"
                          f"  held-out {held:.3f}", flush=True)
                    torch.save({"config": config.__dict__, "model": model.state_dict(),
                                "step": step, "seconds": elapsed},
                               os.path.join(work_dir, "checkpoint.pt"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/train_nano")
