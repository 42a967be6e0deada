#!/usr/bin/env python3
"""Check that the GGUF files `inferlens-cli synth` writes load and run in llama.cpp with our logits.

Purpose
    InferLens claims to read and write llama.cpp's GGUF layout for the `llama`, `chatglm`,
    `qwen2`, `qwen3` and `gemma3` architectures. This tool is the external check of that claim:
    for every architecture and weight type (f32, f16, bf16) it

      1. writes a small random-weight model with `inferlens-cli synth --format gguf`,
      2. computes our logits with `inferlens-cli logits` (ids run exactly as given, no BOS),
      3. loads the same file with llama.cpp (through the PyPI package llama-cpp-python) and
         evaluates the same ids, also without BOS (`Llama.eval(ids)` takes token ids as they are;
         the BOS is only ever added by `Llama.tokenize`), reading every position's logits from
         `Llama.scores` (needs `logits_all=True`),
      4. prints the normalised error ||ours - theirs|| / ||theirs|| (Frobenius norm over all
         positions and the whole vocabulary), the largest absolute difference, at how many
         positions the arg-max token agrees (informational only: a near-tie between the two
         best logits can flip under f16 rounding), and PASS/FAIL against a tolerance.

    llama.cpp is run in a child process (this script re-invoked with --llama-worker), so a
    refusal or an abort inside llama.cpp is reported per case, with the last lines of llama.cpp's
    own log (it is loaded with verbose=True there), instead of ending the whole run.

Tolerances
    llama.cpp computes in f32 but keeps the KV cache in f16 by default, and on the CPU it rounds
    the activations to the weight type before a dot product with f16 or bf16 weights (ggml's
    vec_dot_f16 / vec_dot_bf16: the vec_dot_type of F16 is F16 and of BF16 is BF16), while
    InferLens widens the weights to f32. The expected disagreement therefore depends on the
    weight type and the KV cache type. Default tolerances, at least 3x the errors measured with
    llama-cpp-python 0.3.36 on x86-64 (AVX-512):

        KV cache   f32 weights   f16 weights   bf16 weights
        f16        2e-3          3e-3          2e-2          (llama.cpp's default)
        f32        1e-4          1e-3          2e-2          (--kv-type f32)

    gemma3 is held to at least 3e-4: llama.cpp's CPU GELU (ggml_vec_gelu_f32 with GGML_GELU_FP16)
    looks the activation up in an f16 table, rounding its input and output to f16, which alone
    gives ~7e-5 with f32 weights and an f32 cache (measured; the other architectures ~5e-7).

    --tolerance X uses one value for every case. With --kv-type f32, f32 weights agree to ~1e-6:
    that is the sharpest check that the file layout (tensor names, shapes, fused QKV and
    gate/up order, RoPE dimensions and pairing, GQA grouping) means the same to both.

Usage
    tools/build_llama_cpp.sh               # llama.cpp once, into .cache/llama.cpp-build/
    CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" .cache/venv/bin/pip install \
        .cache/pypi/llama_cpp_python-0.3.36.tar.gz numpy   # the binding only, no second build
    .cache/venv/bin/python tools/compare_with_llama_cpp.py build/app/cli/inferlens-cli
    python3 tools/compare_with_llama_cpp.py build/app/cli/inferlens-cli --kv-type f32
    python3 tools/compare_with_llama_cpp.py CLI --arch gemma3 --dtype bf16 --keep /tmp/cmp

    The binding loads the libllama of tools/build_llama_cpp.sh's build when that build exists
    (LLAMA_CPP_LIB_PATH, unless already set), else whatever llama-cpp-python carries.

    Exit status: 0 when every case passes, 1 otherwise, 2 for wrong usage.

This is a developer tool: nothing in the build or the test suite needs it.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUR_LLAMA_CPP = os.path.join(ROOT, ".cache", "llama.cpp-build", "bin")
if "LLAMA_CPP_LIB_PATH" not in os.environ and os.path.exists(
        os.path.join(OUR_LLAMA_CPP, "libllama.so")):
    os.environ["LLAMA_CPP_LIB_PATH"] = OUR_LLAMA_CPP

# Case name → the architecture `synth` writes and its extra flags. llama3: Llama 3 RoPE scaling with
# an original context of 32, so that every band of frequencies differs from plain RoPE; gemma3: a
# window of 6 on alternate layers, shorter than the 16 ids (llama.cpp must mask as we do).
ARCHS = {
    "llama": ("llama", []),
    "chatglm": ("chatglm", []),
    "llama3": ("llama", ["--rope-scaling", "llama3", "--rope-factor", "8",
                         "--rope-original-ctx", "32"]),
    "qwen2": ("qwen2", []),
    "qwen3": ("qwen3", []),
    "gemma3": ("gemma3", ["--sliding-window", "6", "--sliding-pattern", "2"]),
}
DTYPES = ("f32", "f16", "bf16")
DEFAULT_TOLERANCE = {  # [kv cache type][weight type]; see the docstring
    "f16": {"f32": 2e-3, "f16": 3e-3, "bf16": 2e-2},
    "f32": {"f32": 1e-4, "f16": 1e-3, "bf16": 2e-2},
}

GELU_TABLE_TOLERANCE = 3e-4  # gemma3's floor; see the docstring

# A small model: 2 layers, 4 query heads of 32 sharing 2 KV heads, FFN 256, vocabulary 400.
MODEL = {"layers": 2, "hidden": 128, "heads": 4, "kv-heads": 2, "ffn": 256, "vocab": 400,
         "ctx": 256}
N_CTX = 256

# ChatGLM puts 9 special tokens after the sentencepiece pieces; inputs start with [gMASK] sop.
GLM_SPECIALS = ["[MASK]", "[gMASK]", "[sMASK]", "sop", "eop", "<|system|>", "<|user|>",
                "<|assistant|>", "<|observation|>"]
BODY_IDS = [1, 260, 275, 3, 301, 42, 389, 17, 120, 7, 333, 64, 2, 250, 99, 310]

# GGML_TYPE_F32 / GGML_TYPE_F16, for the KV cache type.
GGML_TYPES = {"f32": 0, "f16": 1}


def token_ids(arch):
    if arch == "chatglm":
        first_special = MODEL["vocab"] - len(GLM_SPECIALS)
        gmask = first_special + GLM_SPECIALS.index("[gMASK]")
        sop = first_special + GLM_SPECIALS.index("sop")
        return [gmask, sop] + BODY_IDS
    return BODY_IDS


def run(command):
    """Runs a command; returns (ok, combined stdout+stderr)."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode == 0, result.stdout


def llama_worker(model_path, ids, out_path, kv_type):
    """Child process: evaluates `ids` with llama.cpp and saves the logits [n_ids, vocab]."""
    import llama_cpp

    kv = GGML_TYPES[kv_type]
    llm = llama_cpp.Llama(model_path=model_path, logits_all=True, n_ctx=N_CTX, n_batch=N_CTX,
                          verbose=True, seed=0, type_k=kv, type_v=kv)
    llm.reset()
    llm.eval(ids)  # the ids exactly as given: Llama.eval adds no BOS
    logits = np.array(llm.scores[: llm.n_tokens, :], dtype=np.float32)
    np.save(out_path, logits)


def log_excerpt(log, lines=25):
    """The part of a llama.cpp log that explains a failure: error lines, else the tail."""
    all_lines = [line for line in log.splitlines() if line.strip()]
    keys = ("error", "failed", "exception", "assert", "invalid", "missing", "wrong", "unknown",
            "traceback", "valueerror", "runtimeerror")
    interesting = [line for line in all_lines if any(k in line.lower() for k in keys)]
    return "\n".join((interesting or all_lines)[-lines:])


def compare_case(cli, case_name, dtype, workdir, kv_type, tolerance, seed):
    arch, extra_flags = ARCHS[case_name]
    name = f"{case_name}-{dtype}"
    model = os.path.join(workdir, name + ".gguf")
    ours_path = os.path.join(workdir, name + ".ours.npy")
    theirs_path = os.path.join(workdir, name + ".llama_cpp.npy")
    ids = token_ids(arch)
    case = {"case": name, "status": "FAIL"}

    synth = [cli, "synth", "--arch", arch, "--dtype", dtype, "--seed", str(seed),
             "--format", "gguf", "--out", model] + extra_flags
    for key, value in MODEL.items():
        synth += ["--" + key, str(value)]
    ok, log = run(synth)
    if not ok:
        case["error"] = "inferlens-cli synth failed:\n" + log.strip()
        return case

    ok, log = run([cli, "logits", "--model", model, "--ids", ",".join(map(str, ids)),
                   "--out", ours_path])
    if not ok:
        case["error"] = "inferlens-cli logits failed:\n" + log.strip()
        return case

    ok, log = run([sys.executable, os.path.abspath(__file__), "--llama-worker", model,
                   ",".join(map(str, ids)), theirs_path, "--kv-type", kv_type])
    if not ok:
        case["error"] = "llama.cpp could not load or run the file:\n" + log_excerpt(log)
        return case

    ours = np.load(ours_path).astype(np.float64)
    theirs = np.load(theirs_path).astype(np.float64)
    if ours.shape != theirs.shape:
        case["error"] = f"shapes differ: ours {ours.shape}, llama.cpp {theirs.shape}"
        return case
    error = float(np.linalg.norm(ours - theirs) / np.linalg.norm(theirs))
    case.update({
        "error_norm": error,
        "max_abs": float(np.abs(ours - theirs).max()),
        "argmax_agree": int((ours.argmax(axis=1) == theirs.argmax(axis=1)).sum()),
        "positions": len(ids),
        "tolerance": tolerance,
        "status": "PASS" if error <= tolerance else "FAIL",
    })
    return case


def main():
    parser = argparse.ArgumentParser(
        description="Compare InferLens logits with llama.cpp on synthetic GGUF models.")
    parser.add_argument("cli", nargs="?", help="path of inferlens-cli")
    parser.add_argument("--arch", choices=list(ARCHS), action="append",
                        help="architecture case to test (repeatable; default: all)")
    parser.add_argument("--dtype", choices=DTYPES, action="append",
                        help="weight type to test (repeatable; default: all)")
    parser.add_argument("--kv-type", choices=sorted(GGML_TYPES), default="f16",
                        help="llama.cpp KV cache type (default f16, llama.cpp's own default)")
    parser.add_argument("--tolerance", type=float,
                        help="one tolerance for every case (default: per weight and KV cache "
                             "type, see the docstring at the top of this file)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="write the models and logits here and keep them")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--llama-worker", nargs=3, metavar=("MODEL", "IDS", "OUT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.llama_worker:
        model, ids, out = args.llama_worker
        llama_worker(model, [int(i) for i in ids.split(",")], out, args.kv_type)
        return 0
    if not args.cli:
        parser.error("the path of inferlens-cli is required")
    cli = os.path.abspath(args.cli)
    if not os.access(cli, os.X_OK):
        parser.error(f"{cli} is not an executable")

    try:
        import llama_cpp
    except ImportError:
        print("llama-cpp-python is not installed: pip install llama-cpp-python", file=sys.stderr)
        return 2
    print(f"llama_cpp (llama-cpp-python) version: {llama_cpp.__version__}")
    print(f"model: {MODEL}; llama.cpp KV cache: {args.kv_type}; n_ctx {N_CTX}")

    workdir_context = tempfile.TemporaryDirectory(prefix="inferlens-llama-cpp-")
    workdir = args.keep or workdir_context.name
    os.makedirs(workdir, exist_ok=True)

    results = []
    for arch in args.arch or ARCHS:
        for dtype in args.dtype or DTYPES:
            tolerance = args.tolerance
            if tolerance is None:
                tolerance = DEFAULT_TOLERANCE[args.kv_type][dtype]
                if ARCHS[arch][0] == "gemma3":
                    tolerance = max(tolerance, GELU_TABLE_TOLERANCE)
            started = time.monotonic()
            case = compare_case(cli, arch, dtype, workdir, args.kv_type, tolerance, args.seed)
            case["seconds"] = round(time.monotonic() - started, 1)
            results.append(case)
            if "error_norm" in case:
                print(f"{case['case']:14} {case['status']}  error {case['error_norm']:.3e} "
                      f"(tolerance {tolerance:.0e})  max|diff| {case['max_abs']:.3e}  "
                      f"argmax agrees {case['argmax_agree']}/{case['positions']}")
            else:
                print(f"{case['case']:14} FAIL  {case['error']}")
            sys.stdout.flush()

    if args.json:
        print(json.dumps({"llama_cpp_version": llama_cpp.__version__, "kv_type": args.kv_type,
                          "results": results}, indent=2))
    workdir_context.cleanup()
    failed = sum(case["status"] != "PASS" for case in results)
    print(f"{len(results) - failed}/{len(results)} cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
