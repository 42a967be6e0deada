#!/usr/bin/env python3
"""Golden data for InferLens's Jinja interpreter: every chat template of the corpus rendered by
jinja2, configured as Hugging Face transformers renders chat templates
(transformers/utils/chat_template_utils.py: ImmutableSandboxedEnvironment with trim_blocks and
lstrip_blocks, the loopcontrols extension, its {% generation %} block (which, when no assistant
mask is asked for, just renders its body), its own tojson filter, raise_exception and
strftime_now as globals), on five conversations.

The corpus: the .jinja files of llama.cpp's models/templates/ and the tokenizer.chat_template of
the GGUF files given (SmolLM2, Gemma 3 270M, llama.cpp's ggml-vocab-*.gguf that carry one).

Deliberate, documented choices (the C++ test renders with the same inputs, read from the output):
  - strftime_now formats a fixed date, FIXED_NOW, so that the golden data does not change daily.
  - bos_token/eos_token: the GGUF's own tokens; "<s>"/"</s>" for the bare .jinja files.
  - tools and documents are left undefined (the issue asks for `tools` undefined by default;
    transformers passes None, which templates mostly test the same way).
  - add_generation_prompt=True.

Writes tests/data/jinja/oracle_renders.json:
  {"fixed_now": ..., "conversations": [[{"role", "content"}...]...],
   "templates": {file name: {"sha256", "bos_token", "eos_token",
                             "renders": [{"text": ...} | {"error": ...}] (one per conversation)}}}

Usage: tools/render_chat_templates.py TEMPLATE_DIR [GGUF ...]
"""

import datetime
import hashlib
import json
import os
import struct
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 30, 5)

LONG_ANSWER = " ".join(
    f"Step {i}: the model reads every weight once per token, so decoding is bound by memory bandwidth."
    for i in range(1, 25))

CONVERSATIONS = [
    [{"role": "user", "content": "Hello! Who are you?"}],
    [{"role": "system", "content": "You are a concise assistant. Answer in one sentence."},
     {"role": "user", "content": "What is the capital of France?"},
     {"role": "assistant", "content": "The capital of France is Paris."},
     {"role": "user", "content": "And of Italy?"}],
    [{"role": "user", "content": "Name a prime number."},
     {"role": "assistant", "content": "7 is a prime number."},
     {"role": "user", "content": "  Another one, please.  "}],
    [{"role": "system", "content": "你是一个乐于助人的助手。"},
     {"role": "user", "content": "你好，请介绍一下北京。"}],
    [{"role": "user", "content": "Explain why decoding is slow."},
     {"role": "assistant", "content": LONG_ANSWER},
     {"role": "user", "content": "Summarise that in five words."}],
]


class GenerationBlock(jinja2.ext.Extension):
    """transformers' AssistantTracker without the tracking: {% generation %}body{% endgeneration %}."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render_body"), [], [], body).set_lineno(
            lineno)

    def _render_body(self, caller):
        return caller()


def make_environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(format):
        return FIXED_NOW.strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


# A minimal GGUF reader: the key-value section only (DESIGN.md §4 GGUF v3).
def read_gguf_metadata(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"GGUF":
        raise ValueError(f"{path}: not a GGUF file")
    pos = 8
    _, n_kv = struct.unpack_from("<qq", data, pos)
    pos += 16
    scalar = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
              11: "<q", 12: "<d"}

    def read_string():
        nonlocal pos
        (n,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        s = data[pos:pos + n].decode("utf-8", errors="replace")
        pos += n
        return s

    def read_value(kind):
        nonlocal pos
        if kind == 8:
            return read_string()
        if kind == 9:
            (item_kind, n) = struct.unpack_from("<IQ", data, pos)
            pos += 12
            return [read_value(item_kind) for _ in range(n)]
        fmt = scalar[kind]
        (v,) = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return v

    meta = {}
    for _ in range(n_kv):
        key = read_string()
        (kind,) = struct.unpack_from("<I", data, pos)
        pos += 4
        meta[key] = read_value(kind)
    return meta


def gguf_template(path):
    meta = read_gguf_metadata(path)
    template = meta.get("tokenizer.chat_template")
    if template is None:
        return None
    tokens = meta.get("tokenizer.ggml.tokens", [])

    def token(key, fallback):
        i = meta.get(key)
        return tokens[i] if i is not None and 0 <= i < len(tokens) else fallback

    return template, token("tokenizer.ggml.bos_token_id", "<s>"), token(
        "tokenizer.ggml.eos_token_id", "</s>")


def render_all(env, source, bos, eos):
    renders = []
    try:
        template = env.from_string(source)
    except Exception as e:  # a template jinja2 cannot parse
        return [{"error": f"{type(e).__name__}: {e}"} for _ in CONVERSATIONS]
    for messages in CONVERSATIONS:
        try:
            text = template.render(messages=messages, add_generation_prompt=True, bos_token=bos,
                                   eos_token=eos)
            renders.append({"text": text})
        except Exception as e:
            renders.append({"error": f"{type(e).__name__}: {e}"})
    return renders


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    template_dir, ggufs = sys.argv[1], sys.argv[2:]
    corpus = []
    for name in sorted(os.listdir(template_dir)):
        if name.endswith(".jinja"):
            with open(os.path.join(template_dir, name), encoding="utf-8") as f:
                corpus.append((name, f.read(), "<s>", "</s>"))
    for path in ggufs:
        found = gguf_template(path)
        if found is not None:
            corpus.append((os.path.basename(path), *found))

    env = make_environment()
    templates = {}
    for name, source, bos, eos in corpus:
        templates[name] = {
            "sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
            "bos_token": bos,
            "eos_token": eos,
            "renders": render_all(env, source, bos, eos),
        }
        failed = sum("error" in r for r in templates[name]["renders"])
        if failed:
            print(f"{name}: jinja2 fails on {failed} of {len(CONVERSATIONS)} conversations",
                  file=sys.stderr)

    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                           "jinja")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "oracle_renders.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/render_chat_templates.py, jinja2 " + jinja2.__version__,
                   "fixed_now": FIXED_NOW.isoformat(),
                   "conversations": CONVERSATIONS,
                   "templates": templates}, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(templates)} templates rendered")


if __name__ == "__main__":
    main()
