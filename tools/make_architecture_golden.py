#!/usr/bin/env python3
"""Tiny random-weight models of the new architectures, and their logits, from Hugging Face transformers.

For each architecture below the script builds a model with transformers itself (its config class and
its own `*ForCausalLM`), randomises every parameter (norm weights included, so that a missing
"1 + w" or a skipped Q/K norm shows), saves it as a Hugging Face directory (config.json +
f32 model.safetensors) under tests/data/architectures/<name>/, and writes beside it

    golden_logits.npy   float32 [len(ids), vocab]: transformers' logits at every position of `ids`,
                        computed in float64 (the model cast to double), so the reference is far more
                        exact than the f32 engine it checks
    golden.json         the ids, what the model exercises, and the versions that made it

tests/test_reference_architectures.cpp opens each directory (and its GGUF conversion) with InferLens
and compares every position.

    llama3        LlamaConfig with rope_scaling llama3 (factor 8, low/high frequency factors 1 and 4,
                  original context 32 so that the scaled, the smoothed and the untouched bands all hold
                  several of the 16 frequencies), GQA 4:2, tied embeddings (as Llama 3.2 and SmolLM2)
    qwen2         Qwen2Config: Q/K/V biases, NeoX (rotate-half) RoPE, base 1e6, GQA 4:2, untied
    qwen3         Qwen3Config: per-head Q/K RMSNorm, head_dim 32 while hidden / heads is 16, no bias
    gemma3        Gemma3TextConfig: embeddings scaled by sqrt(hidden), GELU-tanh gated FFN, pre- and
                  post-norms with (1 + w), Q/K norms, query_pre_attn_scalar, sliding-window layers
                  (window 6 < 24 tokens, their own RoPE base 1e4) interleaved with global ones
                  (base 1e6): layers local, local, global, local; MQA (4 heads, 1 KV head)

Usage (transformers and torch from PyPI in the ignored venv .cache/venv):
    .cache/venv/bin/pip install torch transformers safetensors numpy
    .cache/venv/bin/python tools/make_architecture_golden.py [--out tests/data/architectures]

Deterministic for a given torch version (seeded). Regenerate the models and the logits together.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
import transformers

VOCAB = 160
SEQUENCE = 24
SEED = 23


def fixed_ids():
    """A fixed id sequence over the whole vocabulary (a linear congruence, no randomness)."""
    return [(7 + 37 * i + (i * i) % 11) % VOCAB for i in range(SEQUENCE)]


def common(**extra):
    settings = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                    max_position_embeddings=128, rms_norm_eps=1e-6, torch_dtype="float32")
    settings.update(extra)
    return settings


def set_rope(config, parameters):
    """transformers 4.x calls them rope_scaling (+ rope_theta); 5.x rope_parameters."""
    if hasattr(config, "rope_parameters") and config.rope_parameters is not None:
        config.rope_parameters.update(parameters)
    else:
        config.rope_scaling = parameters


def llama3():
    # head_dim 32: 16 frequencies, so that each llama3 band holds several.
    config = transformers.LlamaConfig(**common(head_dim=32, rope_theta=10000.0,
                                               tie_word_embeddings=True))
    set_rope(config, {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                      "high_freq_factor": 4.0, "original_max_position_embeddings": 32})
    return config, transformers.LlamaForCausalLM, "rope_scaling llama3, tied embeddings, GQA 4:2"


def qwen2():
    config = transformers.Qwen2Config(**common(head_dim=16, rope_theta=1000000.0,
                                               tie_word_embeddings=False))
    return config, transformers.Qwen2ForCausalLM, "QKV bias, NeoX RoPE base 1e6, GQA 4:2, untied"


def qwen3():
    config = transformers.Qwen3Config(**common(head_dim=32, rope_theta=1000000.0,
                                               tie_word_embeddings=False, attention_bias=False))
    return config, transformers.Qwen3ForCausalLM, "per-head Q/K RMSNorm, head_dim 32 != 64/4"


def gemma3():
    layer_types = ["sliding_attention", "sliding_attention", "full_attention", "sliding_attention"]
    config = transformers.Gemma3TextConfig(**common(
        num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=1, head_dim=32,
        query_pre_attn_scalar=32, sliding_window=6, layer_types=layer_types,
        rope_theta=1000000.0, rope_local_base_freq=10000.0, hidden_activation="gelu_pytorch_tanh",
        final_logit_softcapping=None, attn_logit_softcapping=None, tie_word_embeddings=True))
    return config, transformers.Gemma3ForCausalLM, (
        "scaled embeddings, GELU-tanh, pre+post norms (1 + w), Q/K norms, window 6 on layers "
        "0, 1, 3 (RoPE base 1e4), global layer 2 (base 1e6), MQA 4:1")


ARCHITECTURES = {"llama3": llama3, "qwen2": qwen2, "qwen3": qwen3, "gemma3": gemma3}


def write_published_config(path):
    """transformers 5 writes RoPE settings as `rope_parameters`; the configs of the models people
    download (and transformers 4) say rope_theta, rope_scaling and, for Gemma 3,
    rope_local_base_freq. Rewrite them that way (transformers 5 reads both), and drop the
    sliding-window pattern that layer_types already states."""
    with open(path) as f:
        config = json.load(f)
    rope = config.pop("rope_parameters")
    config.pop("_sliding_window_pattern", None)
    if "sliding_attention" in rope:
        config["rope_theta"] = rope["full_attention"]["rope_theta"]
        config["rope_local_base_freq"] = rope["sliding_attention"]["rope_theta"]
        config["rope_scaling"] = None
    else:
        config["rope_theta"] = rope.pop("rope_theta")
        config["rope_scaling"] = rope if rope.get("rope_type", "default") != "default" else None
    with open(path, "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")


# What an engine that missed a feature would compute instead: the normalised error it would show
# against the golden logits (stored in golden.json), proof that the comparison can fail there.
SENSITIVITY = {
    "llama3": {"rope_scaling": lambda c: setattr(c, "rope_parameters",
                                                 {"rope_type": "default", "rope_theta": 10000.0})},
    "gemma3": {"sliding_window": lambda c: setattr(c, "sliding_window", 10 * SEQUENCE),
               "local_rope_base": lambda c: c.rope_parameters["sliding_attention"].update(
                   rope_theta=1000000.0)},
}


def without(model, change, ids, golden):
    config = type(model.config).from_dict(model.config.to_dict())
    change(config)
    config._attn_implementation = "eager"
    variant = type(model)(config).to(torch.float64).eval()
    variant.load_state_dict(model.state_dict())
    with torch.no_grad():
        logits = variant(torch.tensor([ids])).logits[0].numpy()
    return round(float(np.linalg.norm(logits - golden) / np.linalg.norm(golden)), 4)


def randomise(model):
    """Every parameter random: matrices with a spread that gives logits of a few units, norm weights
    around their neutral value (1, or 0 where the architecture adds 1), biases small."""
    generator = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            noise = torch.randn(parameter.shape, generator=generator, dtype=torch.float64)
            if "norm" in name:
                neutral = 0.0 if model.config.model_type.startswith("gemma") else 1.0
                value = neutral + 0.2 * noise
            elif name.endswith("bias"):
                value = 0.2 * noise
            else:
                fan_in = parameter.shape[-1] if parameter.dim() > 1 else 1
                value = noise / np.sqrt(fan_in) * (1.0 if "embed" not in name else 0.5)
            parameter.copy_(value.to(parameter.dtype))


def make(name, out_dir):
    config, model_class, what = ARCHITECTURES[name]()
    config._attn_implementation = "eager"
    torch.manual_seed(SEED)
    model = model_class(config).to(torch.float32).eval()
    randomise(model)
    target = os.path.join(out_dir, name)
    os.makedirs(target, exist_ok=True)
    model.save_pretrained(target, safe_serialization=True)
    os.remove(os.path.join(target, "generation_config.json"))
    write_published_config(os.path.join(target, "config.json"))

    # The reference is the model transformers loads back from what is committed (the config in
    # its published form included), in float64.
    ids = fixed_ids()
    reloaded = model_class.from_pretrained(target, attn_implementation="eager",
                                           dtype=torch.float64).eval()
    with torch.no_grad():
        logits = reloaded(torch.tensor([ids])).logits[0].numpy()
        saved = model.to(torch.float64)(torch.tensor([ids])).logits[0].numpy()
    if np.abs(logits - saved).max() > 1e-9:
        sys.exit(f"{name}: the reloaded config computes something else than the model built")
    sensitivity = {feature: without(reloaded, change, ids, logits)
                   for feature, change in SENSITIVITY.get(name, {}).items()}
    np.save(os.path.join(target, "golden_logits.npy"), logits.astype(np.float32))
    with open(os.path.join(target, "golden.json"), "w") as f:
        json.dump({"architecture": name, "exercises": what, "ids": ids,
                   "error_if_ignored": sensitivity,
                   "logits": "golden_logits.npy: float32 [len(ids), vocab], computed in float64",
                   "transformers": transformers.__version__, "torch": torch.__version__,
                   "made_by": "tools/make_architecture_golden.py"}, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(target, f)) for f in os.listdir(target))
    spread = float(logits.std())
    print(f"{name}: {target} ({size / 1024:.0f} KiB), logits std {spread:.2f}, {what}; "
          f"normalised error of an engine that ignored: {sensitivity}")
    if size > 900 * 1024:
        sys.exit(f"{name} is {size} bytes: keep each model well under 1 MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "tests", "data", "architectures"))
    parser.add_argument("names", nargs="*", default=list(ARCHITECTURES))
    args = parser.parse_args()
    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    for name in args.names:
        make(name, args.out)


if __name__ == "__main__":
    main()
