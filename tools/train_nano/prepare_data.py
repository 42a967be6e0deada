#!/usr/bin/python3
"""Builds the nano model's corpus from Debian's fortune packages.

Sources (all read from /usr/share/games/fortunes, installed by train.sh):
  fortunes-zh  tang300 (Tang poems), song100 (Song ci), chinese (a part: short sayings)  GPL-3.0+
  fortunes     fortunes                                                              BSD-style
  fortunes-min riddles                                                               BSD-style

Every source document becomes plain text and, for poems and fortunes, question-answer rounds in
the ChatGLM2 template. A stable hash of each source document puts about 4 % of them in the held-out
set; nothing derived from a held-out document is trained on.

Output (JSON lines in the work directory):
  train.jsonl    {"prompt": str, "answer": str, "repeat": int}   prompt "" for plain text;
                 poems are repeated three times an epoch (to be recited), other text once
  heldout.jsonl  {"text": str, "source": str}
  tokenizer_corpus.txt  one line of text per line of the training documents
"""
import hashlib
import json
import os
import re
import sys

FORTUNE_DIR = "/usr/share/games/fortunes"
HELDOUT_PERCENT = 4
CHINESE_MAX_CHARS = 160   # the `chinese` file is long (2 MB): keep short sayings, spread over it,
CHINESE_MAX_ENTRIES = 1500  # and leave out its excerpts of Debian manuals
ENGLISH_MAX_CHARS = 240

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
DATES = re.compile(r"（[^）]*）|\([^)]*\)")


def read_fortunes(name):
    """The entries of one fortune file: text between lines holding only '%', colour codes removed."""
    with open(os.path.join(FORTUNE_DIR, name), encoding="utf-8", errors="replace") as f:
        raw = ANSI_ESCAPE.sub("", f.read())
    entries = []
    for block in re.split(r"^%\s*$", raw, flags=re.M):
        # Indentation and column alignment are layout, not text: one space is enough.
        lines = [" ".join(line.split()) for line in block.strip("\n").split("\n")]
        text = "\n".join(lines).strip()
        if text:
            entries.append(text)
    return entries


def parse_poem(entry):
    """tang300: 《title》/作者：name/lines; song100: 题目:《title》/作者:name（dates）/lines."""
    lines = entry.split("\n")
    if len(lines) < 3:
        return None
    title = re.search(r"《(.*?)》", lines[0])
    author = re.match(r"作者[：:]\s*(.*)", lines[1])
    if not title or not author:
        return None
    body = "\n".join(line.strip() for line in lines[2:] if line.strip())
    return {"title": title.group(1).strip(), "author": DATES.sub("", author.group(1)).strip(),
            "body": body}


def is_heldout(text):
    return int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16) % 100 < HELDOUT_PERCENT


def poem_text(poem):
    return f"《{poem['title']}》\n作者：{poem['author']}\n{poem['body']}"


def main(work_dir):
    os.makedirs(work_dir, exist_ok=True)
    train, heldout = [], []

    def add_heldout(text, source):
        heldout.append({"text": text, "source": source})

    poems = []
    for source in ("tang300", "song100"):
        for entry in read_fortunes(source):
            poem = parse_poem(entry)
            if poem is None:
                continue
            poem["source"] = source
            if is_heldout(poem_text(poem)):
                add_heldout(poem_text(poem), source)
            else:
                poems.append(poem)
    # Titles that name one poem only can be asked for; 无题 and friends are ambiguous.
    title_count = {}
    for poem in poems:
        title_count[poem["title"]] = title_count.get(poem["title"], 0) + 1
    for poem in poems:
        train.append({"prompt": "", "answer": poem_text(poem), "repeat": 3})
        if title_count[poem["title"]] == 1:
            train.append({"prompt": f"《{poem['title']}》", "answer": poem["body"], "repeat": 3})
            train.append({"prompt": f"《{poem['title']}》的作者是谁？", "answer": poem["author"],
                          "repeat": 3})
        train.append({"prompt": f"背一首{poem['author']}的诗。",
                      "answer": f"《{poem['title']}》\n{poem['body']}", "repeat": 3})

    sayings = [e for e in read_fortunes("chinese")
               if len(e) <= CHINESE_MAX_CHARS and "debian" not in e.lower()]
    for entry in sayings[::max(1, len(sayings) // CHINESE_MAX_ENTRIES)][:CHINESE_MAX_ENTRIES]:
        if is_heldout(entry):
            add_heldout(entry, "chinese")
            continue
        train.append({"prompt": "", "answer": entry, "repeat": 1})
        train.append({"prompt": "说一句格言。", "answer": entry, "repeat": 1})

    for source in ("fortunes", "riddles"):
        for entry in read_fortunes(source):
            if len(entry) > ENGLISH_MAX_CHARS:
                continue
            if is_heldout(entry):
                add_heldout(entry, source)
                continue
            train.append({"prompt": "", "answer": entry, "repeat": 1})
            train.append({"prompt": "Tell me a fortune.", "answer": entry, "repeat": 1})

    with open(os.path.join(work_dir, "train.jsonl"), "w", encoding="utf-8") as f:
        for doc in train:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    with open(os.path.join(work_dir, "heldout.jsonl"), "w", encoding="utf-8") as f:
        for doc in heldout:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    with open(os.path.join(work_dir, "tokenizer_corpus.txt"), "w", encoding="utf-8") as f:
        for doc in train:
            for line in (doc["prompt"] + "\n" + doc["answer"]).split("\n"):
                if line.strip():
                    f.write(line + "\n")
    print(f"{len(poems)} poems, {len(train)} training documents, {len(heldout)} held out")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/train_nano")
