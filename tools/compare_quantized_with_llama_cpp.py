#!/usr/bin/env python3
"""Check InferLens's Q8_0 and Q4_0 against llama.cpp's own quantizer and its own logits.

Purpose
    InferLens claims to store Q8_0 and Q4_0 exactly as llama.cpp does. For every architecture
    (llama, chatglm) and quantized type (q8_0, q4_0) this tool

      1. writes a small random-weight f32 model with `inferlens-cli synth --format gguf`,
      2. quantizes it with llama.cpp's `llama_model_quantize` (llama-cpp-python's low-level API,
         ftype LLAMA_FTYPE_MOSTLY_Q8_0 = 7 / MOSTLY_Q4_0 = 2, `pure` so that every matrix gets the
         requested type: without it llama.cpp keeps e.g. output.weight in Q6_K for Q4_0 mixes),
      3. quantizes the same f32 file with `inferlens-cli convert --dtype q8_0|q4_0 --format gguf`,
      4. compares the two files tensor by tensor: same type, and byte-identical data (it counts the
         32-value blocks that differ, if any),
      5. dequantizes llama.cpp's file with `inferlens-cli convert --dtype f32` (exact) and, when
         llama.cpp's gguf-py is importable (--gguf-py DIR, e.g. vendor/llama.cpp/gguf-py of the
         llama-cpp-python sdist), checks that its numpy dequantizer gives the same floats,
      6. runs the ids of compare_with_llama_cpp.py with both engines and prints normalised errors
         ||ours - theirs|| / ||theirs|| against tolerances:
           - InferLens on llama.cpp's quantized file vs llama.cpp on the dequantized f32 file: the
             same weight values in both engines, so this is as tight as f32 against f32;
           - InferLens vs llama.cpp, both on llama.cpp's quantized file (with ggml's generic
             kernels, and with llama.cpp's repacked weights one token at a time).

Tolerances
    On the dequantized file the two engines compute with the same weights in f32: agreement to
    ~6e-7 with an f32 KV cache (tolerance 1e-4), ~8e-4 with llama.cpp's default f16 KV cache
    (tolerance 3e-3), as for f32 weights in compare_with_llama_cpp.py. On the quantized file
    llama.cpp's CPU backend also quantizes the activations: the vec_dot_type of Q8_0 and Q4_0 is
    Q8_0, so each activation vector is rounded to 8-bit blocks before every dot product, while
    InferLens keeps it in f32. That costs about as much as quantizing the weights to Q8_0 (1.7e-2
    to 2.1e-2 measured with llama-cpp-python 0.3.36 on x86-64, KV cache f32); tolerance 6e-2. The
    same gap appears between llama.cpp on the quantized file and llama.cpp on its dequantization,
    which the tool prints too.

Usage
    python3 tools/compare_quantized_with_llama_cpp.py build/app/cli/inferlens-cli
    python3 tools/compare_quantized_with_llama_cpp.py CLI --kv-type f16 --keep /tmp/qcmp

    Exit status: 0 when the bytes are identical and the logits agree in every case, 1 otherwise.

This is a developer tool: nothing in the build or the test suite needs it.
"""

import argparse
import os
import struct
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_with_llama_cpp as base  # noqa: E402  (shares the model, ids and llama.cpp worker)

FTYPES = {"q8_0": 7, "q4_0": 2}  # llama_ftype
GGML_TYPE_NAMES = {0: "f32", 1: "f16", 2: "q4_0", 8: "q8_0", 14: "q6_k", 30: "bf16"}
BLOCK_BYTES = {2: 18, 8: 34}
TOLERANCE_DEQUANTIZED = {"f32": 1e-4, "f16": 3e-3}  # [KV cache type]; same f32 weights
TOLERANCE_QUANTIZED = 6e-2  # llama.cpp also rounds activations to Q8_0


def read_gguf_tensors(path):
    """{name: (ggml type, raw bytes)} of a GGUF v2/v3 file; just enough of the format for this."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values[0] if len(values) == 1 else values

    def string():
        nonlocal pos
        length = take("Q")
        text = data[pos:pos + length].decode("utf-8")
        pos += length
        return text

    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
              12: "d"}

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            item, count = take("I"), take("Q")
            return [value(item) for _ in range(count)]
        return take(scalar[kind])

    if data[:4] != b"GGUF":
        raise ValueError(f"{path}: not a GGUF file")
    pos = 4
    _version, n_tensors, n_kv = take("I"), take("q"), take("q")
    metadata = {}
    for _ in range(n_kv):
        key = string()
        metadata[key] = value(take("I"))
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = take("I")
        ne = [take("q") for _ in range(dims)]
        kind, offset = take("I"), take("Q")
        infos.append((name, ne, kind, offset))
    alignment = metadata.get("general.alignment", 32)
    start = (pos + alignment - 1) // alignment * alignment
    sizes = {0: (1, 4), 1: (1, 2), 30: (1, 2), 2: (32, 18), 8: (32, 34), 14: (256, 210)}
    tensors = {}
    for name, ne, kind, offset in infos:
        elements = int(np.prod(ne))
        block, block_bytes = sizes[kind]
        size = elements // block * block_bytes
        tensors[name] = (kind, data[start + offset:start + offset + size])
    return metadata, tensors


def quantize_worker(source, target, ftype):
    """Child process: llama.cpp's quantizer, every tensor to the type of `ftype`."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.pure = True
    params.nthread = 1
    result = llama_cpp.llama_model_quantize(source.encode(), target.encode(), params)
    sys.exit(1 if result != 0 else 0)


def compare_bytes(ours_path, theirs_path):
    """(summary line, identical?) of the tensor data of two GGUF files."""
    ours_meta, ours = read_gguf_tensors(ours_path)
    theirs_meta, theirs = read_gguf_tensors(theirs_path)
    problems, identical, blocks, differing_blocks = [], 0, 0, 0
    for name, (kind, raw) in theirs.items():
        if name not in ours:
            problems.append(f"{name} missing in ours")
            continue
        our_kind, our_raw = ours[name]
        if our_kind != kind:
            problems.append(f"{name}: ours {GGML_TYPE_NAMES.get(our_kind, our_kind)}, llama.cpp "
                            f"{GGML_TYPE_NAMES.get(kind, kind)}")
            continue
        if our_raw == raw:
            identical += 1
        step = BLOCK_BYTES.get(kind)
        if step:
            count = len(raw) // step
            blocks += count
            differing_blocks += sum(our_raw[i * step:(i + 1) * step] != raw[i * step:(i + 1) * step]
                                    for i in range(count))
        elif our_raw != raw:
            problems.append(f"{name}: {GGML_TYPE_NAMES.get(kind, kind)} data differ")
    types = sorted({GGML_TYPE_NAMES.get(kind, str(kind)) for kind, _ in theirs.values()})
    file_types = (ours_meta.get("general.file_type"), theirs_meta.get("general.file_type"))
    line = (f"tensors identical {identical}/{len(theirs)} (llama.cpp types: {', '.join(types)}); "
            f"quantized blocks differing {differing_blocks}/{blocks}; "
            f"general.file_type ours {file_types[0]}, llama.cpp {file_types[1]}")
    ok = not problems and identical == len(theirs) and file_types[0] == file_types[1]
    if problems:
        line += "\n    " + "\n    ".join(problems[:10])
    return line, ok


def llama_worker(model_path, ids, out_path, kv_type, extra_buffers, n_batch):
    """Child process: llama.cpp's logits [n_ids, vocab] for `ids`, as compare_with_llama_cpp.py
    computes them, with two knobs. extra_buffers=False turns off llama.cpp's weight repacking
    (llama_model_params.use_extra_bufts, which llama-cpp-python does not expose, hence the patched
    defaults), so that ggml's generic Q8_0/Q4_0 dot products run. With repacking on, a prompt
    batch of quantized weights takes llama.cpp's repacked (AMX-capable) GEMM path, which died with
    an illegal instruction on the development VM (an AMX-advertising Xeon); n_batch=1 keeps it on
    the one-token path, which ran."""
    import llama_cpp
    import llama_cpp.llama as high_level

    defaults = high_level.llama_cpp.llama_model_default_params

    def model_params():
        params = defaults()
        params.use_extra_bufts = extra_buffers
        return params

    high_level.llama_cpp.llama_model_default_params = model_params
    kv = base.GGML_TYPES[kv_type]
    llm = llama_cpp.Llama(model_path=model_path, logits_all=True, n_ctx=base.N_CTX,
                          n_batch=n_batch, n_ubatch=n_batch, verbose=True, seed=0, type_k=kv,
                          type_v=kv)
    llm.reset()
    llm.eval(ids)  # no BOS added
    np.save(out_path, np.array(llm.scores[: llm.n_tokens, :], dtype=np.float32))


def llama_logits(model, ids, out_path, kv_type, extra_buffers, n_batch):
    """llama.cpp's logits on `model` (run in a child process), or raises with its log."""
    ok, log = base.run([sys.executable, os.path.abspath(__file__), "--llama-worker", model,
                        ",".join(map(str, ids)), out_path, kv_type, str(int(extra_buffers)),
                        str(n_batch)])
    if not ok:
        raise RuntimeError("llama.cpp could not run the file:\n" + base.log_excerpt(log))
    return np.load(out_path).astype(np.float64)


def our_logits(cli, model, ids, out_path):
    ok, log = base.run([cli, "logits", "--model", model, "--ids", ",".join(map(str, ids)),
                        "--out", out_path])
    if not ok:
        raise RuntimeError("inferlens-cli logits failed:\n" + log.strip())
    return np.load(out_path).astype(np.float64)


def normalised_error(ours, theirs):
    return float(np.linalg.norm(ours - theirs) / np.linalg.norm(theirs))


def gguf_py_check(theirs_file, dequantized_file):
    """Whether llama.cpp's gguf-py dequantizes every quantized tensor of `theirs_file` to exactly
    the floats that InferLens wrote into `dequantized_file`; a summary line."""
    import gguf

    _, ours = read_gguf_tensors(dequantized_file)
    checked, equal = 0, 0
    for tensor in gguf.GGUFReader(theirs_file).tensors:
        if int(tensor.tensor_type) not in BLOCK_BYTES:
            continue
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32)
        checked += 1
        equal += np.array_equal(values.ravel(), np.frombuffer(ours[tensor.name][1], np.float32))
    return equal == checked, f"gguf-py dequantizes {equal}/{checked} tensors to our exact floats"


def compare_case(cli, arch, qtype, f32, workdir, args):
    """Runs one (architecture, type) case; prints its lines and returns the number of failures."""
    name = f"{arch}-{qtype}"
    theirs_file = os.path.join(workdir, name + ".llama_cpp.gguf")
    ours_file = os.path.join(workdir, name + ".ours.gguf")
    dequantized = os.path.join(workdir, name + ".llama_cpp.dequantized.gguf")
    ok, log = base.run([sys.executable, os.path.abspath(__file__), "--quantize-worker", f32,
                        theirs_file, str(FTYPES[qtype])])
    if not ok:
        print(f"{name}: llama.cpp's quantizer failed\n{base.log_excerpt(log)}")
        return 1
    for source, target, dtype in ((f32, ours_file, qtype), (theirs_file, dequantized, "f32")):
        ok, log = base.run([cli, "convert", "--model", source, "--format", "gguf", "--dtype", dtype,
                            "--out", target])
        if not ok:
            print(f"{name}: inferlens-cli convert failed\n{log}")
            return 1
    failures = 0
    line, identical = compare_bytes(ours_file, theirs_file)
    print(f"{name:13} bytes {'IDENTICAL' if identical else 'DIFFER'}: {line}")
    failures += not identical
    if args.gguf_py:
        same, line = gguf_py_check(theirs_file, dequantized)
        print(f"{name:13} {'PASS' if same else 'FAIL'} {line}")
        failures += not same

    ids = base.token_ids(arch)
    out = lambda label: os.path.join(workdir, f"{name}.{label}.npy")  # noqa: E731
    try:
        ours = our_logits(cli, theirs_file, ids, out("ours"))
        ours_own = our_logits(cli, ours_file, ids, out("own"))
        ours_f32 = our_logits(cli, f32, ids, out("f32"))
        lc_dequantized = llama_logits(dequantized, ids, out("lc-dequantized"), args.kv_type, False,
                                      base.N_CTX)
        lc_generic = llama_logits(theirs_file, ids, out("lc-generic"), args.kv_type, False,
                                  base.N_CTX)
        lc_repacked = llama_logits(theirs_file, ids, out("lc-repacked"), args.kv_type, True, 1)
    except RuntimeError as error:
        print(f"{name:13} FAIL {error}")
        return failures + 1
    same_file = np.array_equal(ours, ours_own)
    failures += not same_file
    print(f"{name:13} {'PASS' if same_file else 'FAIL'} InferLens logits on llama.cpp's file and "
          f"on its own are {'identical' if same_file else 'DIFFERENT'}; quantization error "
          f"(InferLens, vs f32 model) {normalised_error(ours, ours_f32):.3e}")
    comparisons = (
        ("llama.cpp on the dequantized f32 file", lc_dequantized,
         TOLERANCE_DEQUANTIZED[args.kv_type]),
        ("llama.cpp, generic kernels", lc_generic, TOLERANCE_QUANTIZED),
        ("llama.cpp, repacked, 1 token a batch", lc_repacked, TOLERANCE_QUANTIZED),
    )
    for label, theirs, tolerance in comparisons:
        error = normalised_error(ours, theirs)
        agree = int((ours.argmax(axis=1) == theirs.argmax(axis=1)).sum())
        passed = error <= tolerance
        failures += not passed
        print(f"{name:13} {'PASS' if passed else 'FAIL'} InferLens vs {label}: {error:.3e} "
              f"(tolerance {tolerance:.0e}), max|diff| {np.abs(ours - theirs).max():.3e}, "
              f"argmax agrees {agree}/{len(ids)}")
    print(f"{name:13} (llama.cpp quantized vs llama.cpp dequantized, its activation rounding: "
          f"{normalised_error(lc_generic, lc_dequantized):.3e})")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cli", nargs="?", help="path of inferlens-cli")
    parser.add_argument("--kv-type", choices=sorted(base.GGML_TYPES), default="f32",
                        help="llama.cpp KV cache type (default f32: isolates the weights)")
    parser.add_argument("--gguf-py", metavar="DIR",
                        help="llama.cpp's gguf-py directory, for the dequantization check")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", metavar="DIR", help="keep the models and logits here")
    parser.add_argument("--quantize-worker", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--llama-worker", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.llama_worker:
        model, ids, out, kv_type, extra_buffers, n_batch = args.llama_worker
        llama_worker(model, [int(i) for i in ids.split(",")], out, kv_type, extra_buffers == "1",
                     int(n_batch))
        return 0
    if args.quantize_worker:
        source, target, ftype = args.quantize_worker
        quantize_worker(source, target, int(ftype))
        return 0
    if not args.cli:
        parser.error("the path of inferlens-cli is required")
    cli = os.path.abspath(args.cli)
    if args.gguf_py:
        sys.path.insert(0, os.path.abspath(args.gguf_py))
    try:
        import llama_cpp
    except ImportError:
        print("llama-cpp-python is not installed: pip install llama-cpp-python", file=sys.stderr)
        return 2

    print(f"llama-cpp-python {llama_cpp.__version__}; model {base.MODEL}; "
          f"llama.cpp KV cache {args.kv_type}")
    workdir_context = tempfile.TemporaryDirectory(prefix="inferlens-quant-")
    workdir = args.keep or workdir_context.name
    os.makedirs(workdir, exist_ok=True)

    failures = 0
    for arch in base.ARCHS:
        f32 = os.path.join(workdir, f"{arch}-f32.gguf")
        synth = [cli, "synth", "--arch", arch, "--dtype", "f32", "--seed", str(args.seed),
                 "--format", "gguf", "--out", f32]
        for key, value in base.MODEL.items():
            synth += ["--" + key, str(value)]
        ok, log = base.run(synth)
        if not ok:
            print(f"{arch}: synth failed\n{log}")
            failures += 1
            continue
        for qtype in FTYPES:
            failures += compare_case(cli, arch, qtype, f32, workdir, args)
            sys.stdout.flush()
    workdir_context.cleanup()
    print("all checks pass" if failures == 0 else f"{failures} checks fail")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
