#!/usr/bin/env bash
# Builds llama.cpp once, for every comparison InferLens makes with it (golden data, fidelity tools,
# speed), from the source the llama-cpp-python 0.3.36 sdist vendors (fetched by
# tools/fetch_pypi_files.sh llama-cpp-source). Nothing in InferLens's own build or tests needs it.
#
# Outputs, under .cache/llama.cpp-build/ (or $INFERLENS_CACHE_DIR/llama.cpp-build/), ignored by git:
#   bin/libllama.so, bin/libggml*.so   the shared libraries (for ctypes: LLAMA_CPP_LIB_PATH=bin/)
#   bin/llama-cli                      interactive chat (Jinja chat templates)
#   bin/llama-completion               plain completion (the old llama-cli)
#   bin/llama-server                   HTTP server (/completion, /tokenize, /apply-template)
#   bin/llama-bench                    speed (bench/compare_with_llama_cpp.sh: LLAMA_BENCH=...)
#   bin/llama-tokenize                 token ids of a text
#   bin/llama-quantize                 requantize a GGUF (bench/make_llama_cpp_models.sh)
#   VERSION                            what was built and how (source, flags, AMX)
#   .complete                          written last; a second call finds it and only prints paths
#
# Settings: CPU only, Release, GGML_NATIVE=ON (-march=native), shared libraries, no OpenSSL, no web
# UI download, no tests or examples. The build is for this machine only: rebuild it (FORCE=1) on
# another CPU.
#
# AMX: on Intel Xeons with AMX (the `amx_int8` flag in /proc/cpuinfo: the Sapphire Rapids kind of
# machine these sessions run on) -march=native makes ggml compile its AMX matrix-multiply path
# (__AMX_INT8__), which crashes there; the script then adds -mno-amx-tile -mno-amx-int8
# -mno-amx-bf16, which GCC honours whatever their place relative to -march=native. ggml then uses
# its AVX-512/VNNI kernels instead. On machines without AMX (the AMD Zen kind) nothing is added.
#
# Usage: tools/build_llama_cpp.sh            build if needed, print the paths
#        FORCE=1 tools/build_llama_cpp.sh    rebuild from scratch
# Environment: JOBS (parallel compile jobs, default 2). Exit status 3 when the source cannot be
# fetched (no package index), 1 on any other failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${INFERLENS_CACHE_DIR:-$root/.cache}"
build="$cache/llama.cpp-build"
jobs="${JOBS:-2}"

die() { echo "build_llama_cpp: $*" >&2; exit 1; }

print_outputs() {
    echo "llama.cpp build: $build"
    sed 's/^/  /' "$build/VERSION"
    for tool in llama-cli llama-completion llama-server llama-bench llama-tokenize llama-quantize; do
        echo "  $tool: $build/bin/$tool"
    done
    echo "  libllama: $build/bin/libllama.so"
    echo "$build/bin"
}

if [ -f "$build/.complete" ] && [ -z "${FORCE:-}" ]; then
    print_outputs
    exit 0
fi

set +e
source_dir="$("$root/tools/fetch_pypi_files.sh" llama-cpp-source | tail -1)"
status=$?
set -e
[ "$status" -eq 0 ] || exit "$status"
[ -f "$source_dir/CMakeLists.txt" ] || die "no llama.cpp source at $source_dir"

amx_flags=""
machine="no AMX (AVX-512/AVX2 kernels as -march=native gives them)"
if grep -qw amx_int8 /proc/cpuinfo; then
    amx_flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    machine="Intel with AMX: AMX switched off ($amx_flags), its ggml path crashes here"
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

rm -rf "$build"
mkdir -p "$build"
echo "build_llama_cpp: configuring in $build ($machine)" >&2
cmake -S "$source_dir" -B "$build" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=ON \
    -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENMP=ON \
    -DCMAKE_C_FLAGS="$amx_flags" -DCMAKE_CXX_FLAGS="$amx_flags" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF \
    -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$build/bin" -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$build/bin" \
    >"$build/configure.log" 2>&1 || { tail -30 "$build/configure.log" >&2; die "cmake configure failed (log: $build/configure.log)"; }

echo "build_llama_cpp: building with $jobs jobs (a while on 2 cores; log: $build/build.log)" >&2
cmake --build "$build" -j "$jobs" --target llama llama-cli llama-completion llama-server \
    llama-bench llama-tokenize llama-quantize >"$build/build.log" 2>&1 ||
    { tail -30 "$build/build.log" >&2; die "build failed (log: $build/build.log)"; }

# Prove the AMX path is really out: its buffer type is only compiled with __AMX_INT8__.
if [ -n "$amx_flags" ] && nm -D --defined-only "$build/bin/libggml-cpu.so" | grep -q ggml_backend_amx_buffer_type; then
    die "libggml-cpu.so still contains the AMX path despite $amx_flags"
fi

{
    echo "source: $source_dir (llama-cpp-python 0.3.36 sdist, vendor/llama.cpp)"
    echo "flags: Release, GGML_NATIVE=ON, CPU only, shared, extra: ${amx_flags:-none}"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $machine"
    echo "built: $(date -u +%Y-%m-%dT%H:%MZ)"
} >"$build/VERSION"
touch "$build/.complete"
print_outputs
