#!/usr/bin/env python3
"""Writes tests/data/torch/: tiny ChatGLM2 models as PyTorch checkpoints, written by torch.save.

ChatGLM2-6B is published as pytorch_model-0000k-of-00007.bin shards plus
pytorch_model.bin.index.json. The engine's reader for that form (engine/src/io/torch_*.cpp) is
tested on files that PyTorch itself wrote: this script makes a synthetic Hugging Face ChatGLM2
directory with `inferlens-cli synth`, reads its model.safetensors with the `safetensors` package
and saves the same tensors with torch.save in three layouts:

  chatglm-f16/          pytorch_model.bin: the state dict as model.state_dict() returns it (an
                        OrderedDict with `_metadata`), in the module order of the real model, with
                        the buffer transformer.rotary_pos_emb.inv_freq (f16, as in ChatGLM2-6B).
  chatglm-f16-sharded/  the same tensors in two shards, pytorch_model-0000k-of-00002.bin, plain
                        dicts, with pytorch_model.bin.index.json, as transformers' save_pretrained
                        lays them out.
  chatglm-f32-views/    a smaller f32 model whose tensors are all views into ONE storage, so every
                        tensor but the first has a non-zero storage_offset.

Each directory also gets config.json and tokenizer.model from its synthetic directory, so it is a
complete model. manifest.json records the synth options, the SHA-256 of the model.safetensors the
weights came from (tests regenerate it with the same options and check the hash before comparing
logits) and the torch version.

Usage: python3 tools/make_torch_checkpoints.py --cli build/app/cli/inferlens-cli
Needs: torch, safetensors (pip install torch safetensors).
"""

import argparse
import collections
import hashlib
import json
import pathlib
import re
import shutil
import subprocess
import tempfile

import torch
from safetensors.torch import load_file

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "torch"

F16_SYNTH = {"arch": "chatglm", "dtype": "f16", "layers": 2, "hidden": 32, "heads": 4,
             "kv-heads": 2, "ffn": 48, "vocab": 300, "ctx": 64, "seed": 1}
F32_SYNTH = {"arch": "chatglm", "dtype": "f32", "layers": 1, "hidden": 16, "heads": 4,
             "kv-heads": 2, "ffn": 32, "vocab": 272, "ctx": 64, "seed": 2}
MODELS = {
    "chatglm-f16": (F16_SYNTH, "single"),
    "chatglm-f16-sharded": (F16_SYNTH, "sharded"),
    "chatglm-f32-views": (F32_SYNTH, "views"),
}
LAYER_ORDER = ["input_layernorm.weight", "self_attention.query_key_value.weight",
               "self_attention.query_key_value.bias", "self_attention.dense.weight",
               "post_attention_layernorm.weight", "mlp.dense_h_to_4h.weight",
               "mlp.dense_4h_to_h.weight"]


def synth(cli, options, out):
    arguments = [cli, "synth", "--out", str(out), "--format", "hf"]
    for key, value in options.items():
        arguments += ["--" + key, str(value)]
    subprocess.run(arguments, check=True, stdout=subprocess.DEVNULL)


def module_order(name):
    """The position of a tensor in ChatGLMForConditionalGeneration.state_dict()."""
    if name == "transformer.embedding.word_embeddings.weight":
        return (0,)
    if name == "transformer.rotary_pos_emb.inv_freq":
        return (1,)
    layer = re.fullmatch(r"transformer\.encoder\.layers\.(\d+)\.(.+)", name)
    if layer:
        return (2, int(layer.group(1)), LAYER_ORDER.index(layer.group(2)))
    return (3, ["transformer.encoder.final_layernorm.weight",
                "transformer.output_layer.weight"].index(name))


def state_dict(synth_dir, config):
    """The synthetic weights plus the rotary buffer, in the real model's order."""
    tensors = load_file(str(synth_dir / "model.safetensors"))
    dtype = next(iter(tensors.values())).dtype
    # ChatGLM2's RotaryEmbedding(kv_channels // 2): inv_freq = 1 / 10000^(2i / dim), stored in
    # the model's dtype because the published model was converted with .half().
    dim = config["kv_channels"] // 2
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    tensors["transformer.rotary_pos_emb.inv_freq"] = inv_freq.to(dtype)
    return {name: tensors[name] for name in sorted(tensors, key=module_order)}


def as_module_state_dict(tensors, layers):
    """An OrderedDict carrying `_metadata`, as nn.Module.state_dict() returns it."""
    result = collections.OrderedDict(tensors)
    metadata = collections.OrderedDict()
    for prefix in ["", "transformer", "transformer.embedding",
                   "transformer.embedding.word_embeddings", "transformer.rotary_pos_emb",
                   "transformer.encoder"]:
        metadata[prefix] = {"version": 1}
    for layer in range(layers):
        metadata[f"transformer.encoder.layers.{layer}"] = {"version": 1}
    result._metadata = metadata
    return result


def write_single(tensors, config, out):
    torch.save(as_module_state_dict(tensors, config["num_layers"]), out / "pytorch_model.bin")


def write_sharded(tensors, out, shards=2):
    """transformers' shard_checkpoint: tensors in order, a new shard once one is full (the limit,
    like max_shard_size, chosen so that this model needs two)."""
    total = sum(t.numel() * t.element_size() for t in tensors.values())
    limit = total * 3 // (2 * shards)
    blocks, current, size = [], {}, 0
    for name, tensor in tensors.items():
        nbytes = tensor.numel() * tensor.element_size()
        if current and size + nbytes > limit:
            blocks.append(current)
            current, size = {}, 0
        current[name] = tensor
        size += nbytes
    blocks.append(current)
    assert len(blocks) == shards, len(blocks)
    weight_map = {}
    for index, block in enumerate(blocks):
        shard = f"pytorch_model-{index + 1:05d}-of-{shards:05d}.bin"
        torch.save(block, out / shard)
        weight_map.update({name: shard for name in block})
    index = {"metadata": {"total_size": total}, "weight_map": weight_map}
    (out / "pytorch_model.bin.index.json").write_text(
        json.dumps(index, indent=2, sort_keys=True) + "\n")


def write_views(tensors, out):
    """Every tensor a contiguous view into one flat storage, at increasing offsets."""
    flat = torch.cat([t.reshape(-1) for t in tensors.values()])
    views, offset = collections.OrderedDict(), 0
    for name, tensor in tensors.items():
        views[name] = flat[offset:offset + tensor.numel()].view(tensor.shape)
        offset += tensor.numel()
    torch.save(views, out / "pytorch_model.bin")


def check(tensors, out):
    """torch.load (weights only) gives back exactly the tensors that were saved."""
    loaded = {}
    for path in sorted(out.glob("pytorch_model*.bin")):
        loaded.update(torch.load(path, weights_only=True))
    assert loaded.keys() == tensors.keys()
    for name, tensor in tensors.items():
        assert loaded[name].dtype == tensor.dtype and torch.equal(loaded[name], tensor), name


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True, help="path to inferlens-cli")
    args = parser.parse_args()
    manifest = {"torch_version": torch.__version__, "models": {}}
    with tempfile.TemporaryDirectory() as work:
        for name, (options, layout) in MODELS.items():
            synth_dir = pathlib.Path(work) / name
            synth(args.cli, options, synth_dir)
            config = json.loads((synth_dir / "config.json").read_text())
            tensors = state_dict(synth_dir, config)
            out = OUT / name
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            for file in ["config.json", "tokenizer.model"]:
                shutil.copy(synth_dir / file, out / file)
            {"single": lambda: write_single(tensors, config, out),
             "sharded": lambda: write_sharded(tensors, out),
             "views": lambda: write_views(tensors, out)}[layout]()
            check(tensors, out)
            digest = hashlib.sha256((synth_dir / "model.safetensors").read_bytes()).hexdigest()
            manifest["models"][name] = {"synth": options, "layout": layout,
                                        "safetensors_sha256": digest}
            print(f"wrote {out.relative_to(REPO)}: " + ", ".join(
                f"{p.name} ({p.stat().st_size} bytes)" for p in sorted(out.iterdir())))
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
