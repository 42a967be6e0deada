#!/usr/bin/env python3
"""Writes tests/data/quant/: random blocks of every block format InferLens reads, and their values
as llama.cpp's own Python package (gguf-py, from PyPI: `pip install gguf numpy`) dequantizes them.

Purpose
    test_quantized decodes the same bytes with InferLens's decoders and must get the same floats:
    an independent reference for the byte layouts of Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K and
    Q6_K. The bytes are uniformly random (so every bit of every field is exercised: the 6-bit
    K-scales' high bits, the fifth bits, Q6_K's 2-bit parts), except the fp16 scales, which are set
    to finite values of either sign between 2^-10 and 1 (a random fp16 could be infinite or NaN).

Output
    tests/data/quant/<type>.blocks   the blocks, as they would lie in a GGUF file
    tests/data/quant/<type>.f32      gguf-py's dequantization, little-endian float32

Usage
    python3 tools/make_quant_golden.py [--seed 1] [--out tests/data/quant]

Made with gguf 0.19.0 and numpy 2.3; the output is deterministic for a given seed.
"""

import argparse
import os

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf.quants import dequantize

# type: (name, blocks to write, byte offsets of its fp16 scales)
FORMATS = {
    T.Q8_0: ("q8_0", 64, [0]),
    T.Q4_0: ("q4_0", 64, [0]),
    T.Q4_1: ("q4_1", 64, [0, 2]),
    T.Q5_0: ("q5_0", 64, [0]),
    T.Q5_1: ("q5_1", 64, [0, 2]),
    T.Q4_K: ("q4_k", 16, [0, 2]),
    T.Q5_K: ("q5_k", 16, [0, 2]),
    T.Q6_K: ("q6_k", 16, [208]),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=os.path.join("tests", "data", "quant"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    from gguf.constants import GGML_QUANT_SIZES

    for qtype, (name, count, scale_offsets) in FORMATS.items():
        block_elements, block_bytes = GGML_QUANT_SIZES[qtype]
        blocks = rng.integers(0, 256, size=(count, block_bytes), dtype=np.uint8)
        for offset in scale_offsets:
            magnitude = np.exp2(rng.uniform(-10, 0, size=count))
            sign = rng.choice([-1.0, 1.0], size=count)
            scales = (sign * magnitude).astype(np.float16).view(np.uint8).reshape(count, 2)
            blocks[:, offset : offset + 2] = scales
        values = dequantize(blocks.reshape(-1), qtype).astype("<f4")
        assert values.size == count * block_elements and np.all(np.isfinite(values))
        blocks.tofile(os.path.join(args.out, name + ".blocks"))
        values.tofile(os.path.join(args.out, name + ".f32"))
        print(f"{name}: {count} blocks, {values.size} values")


if __name__ == "__main__":
    main()
