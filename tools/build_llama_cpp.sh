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
# UI download, no tests; examples are configured (older sources keep their tools there) but only
# the tools above are built. The build is for this machine only: rebuild it (FORCE=1) on another
# CPU.
#
# AMX: on Intel Xeons with AMX (the `amx_int8` flag in /proc/cpuinfo: the Sapphire Rapids kind of
# machine these sessions run on) -march=native makes ggml compile its AMX matrix-multiply path
# (__AMX_INT8__), which crashes there; the script then adds -mno-amx-tile -mno-amx-int8
# -mno-amx-bf16, which GCC honours whatever their place relative to -march=native. ggml then uses
# its AVX-512/VNNI kernels instead. On machines without AMX (the AMD Zen kind) nothing is added.
#
# Usage: tools/build_llama_cpp.sh            build if needed, print the paths
#        FORCE=1 tools/build_llama_cpp.sh    rebuild from scratch
#        tools/build_llama_cpp.sh --source DIR --name NAME
#            build another llama.cpp — a source tree, or a bare git repository such as the snapshot
#            the search tool's `fetch github:ggerganov/llama.cpp` brings (b4747, February 2025; its
#            HEAD is exported) — into .cache/llama.cpp-build-NAME/. Such a build keeps its native
#            AMX path (b4747's works on the Intel kind and is what makes it the stronger peer
#            there); NO_AMX=1 switches it off as for the default source. Targets the source does
#            not have (b4747 has no llama-completion) are skipped.
#        tools/build_llama_cpp.sh --only llama-server
#            build just that tool (and what it links), as scripts/test.sh does for the remote tests;
#            a later call without --only builds the rest in the same folder.
# Environment: JOBS (parallel compile jobs, default 2). Exit status 3 when the source cannot be
# fetched (no package index), 1 on any other failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${INFERLENS_CACHE_DIR:-$root/.cache}"
jobs="${JOBS:-2}"

die() { echo "build_llama_cpp: $*" >&2; exit 1; }

other_source=""
name=""
only=""
while [ $# -gt 0 ]; do
    case "$1" in
    --source) other_source="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) die "unknown argument $1 (usage: tools/build_llama_cpp.sh [--source DIR --name NAME] [--only TOOL])" ;;
    esac
done
[ -z "$other_source" ] || [ -n "$name" ] || die "--source needs --name"
build="$cache/llama.cpp-build${name:+-$name}"

print_outputs() {
    echo "llama.cpp build: $build"
    sed 's/^/  /' "$build/VERSION"
    for tool in llama-cli llama-completion llama-server llama-bench llama-tokenize llama-quantize; do
        [ -x "$build/bin/$tool" ] && echo "  $tool: $build/bin/$tool"
    done
    echo "  libllama: $build/bin/libllama.so"
    echo "$build/bin"
}

if [ -z "${FORCE:-}" ] && { [ -f "$build/.complete" ] || { [ -n "$only" ] && [ -x "$build/bin/$only" ]; }; }; then
    print_outputs
    exit 0
fi

if [ -z "$other_source" ]; then
    set +e
    source_dir="$("$root/tools/fetch_pypi_files.sh" llama-cpp-source | tail -1)"
    status=$?
    set -e
    [ "$status" -eq 0 ] || exit "$status"
    source_label="llama-cpp-python 0.3.36 sdist, vendor/llama.cpp"
elif [ -f "$other_source/HEAD" ] && [ -d "$other_source/objects" ]; then
    # A bare repository: export its HEAD once (no work tree, no submodules needed by ggml). A
    # snapshot may lack its largest files (vocabulary GGUFs under models/, which the build does
    # not read): those paths are left out rather than failing the export.
    source_dir="$cache/llama.cpp-$name-src"
    if [ ! -f "$source_dir/.complete" ]; then
        rm -rf "$source_dir" && mkdir -p "$source_dir"
        # Blob by blob: git archive stops at the first absent one, whatever the pathspec.
        while read -r mode object path; do
            if git --git-dir="$other_source" cat-file -e "$object" 2>/dev/null; then
                mkdir -p "$source_dir/$(dirname "$path")"
                git --git-dir="$other_source" cat-file blob "$object" >"$source_dir/$path"
                [ "$mode" != 100755 ] || chmod +x "$source_dir/$path"
            else
                echo "build_llama_cpp: the snapshot lacks $path (left out)" >&2
            fi
        done < <(git --git-dir="$other_source" ls-tree -r HEAD | awk '$2 == "blob" { print $1, $3, $4 }')
        touch "$source_dir/.complete"
    fi
    source_label="$other_source at $(git --git-dir="$other_source" describe --tags --always HEAD)"
else
    source_dir="$other_source"
    source_label="$other_source"
fi
[ -f "$source_dir/CMakeLists.txt" ] || die "no llama.cpp source at $source_dir"

amx_flags=""
machine="no AMX (AVX-512/AVX2 kernels as -march=native gives them)"
if grep -qw amx_int8 /proc/cpuinfo; then
    if [ -z "$other_source" ] || [ -n "${NO_AMX:-}" ]; then
        amx_flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
        machine="Intel with AMX: AMX switched off ($amx_flags), its ggml path crashes here"
    else
        machine="Intel with AMX: its native AMX path kept (ggml_backend_amx)"
    fi
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# A folder configured by an earlier --only call is built on; anything else starts afresh.
if [ -n "${FORCE:-}" ] || [ ! -f "$build/.configured" ]; then
    rm -rf "$build"
fi
mkdir -p "$build"
echo "build_llama_cpp: configuring in $build ($machine)" >&2
cmake -S "$source_dir" -B "$build" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=ON \
    -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENMP=ON \
    -DCMAKE_C_FLAGS="$amx_flags" -DCMAKE_CXX_FLAGS="$amx_flags" \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=ON -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF \
    -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$build/bin" -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$build/bin" \
    >"$build/configure.log" 2>&1 || { tail -30 "$build/configure.log" >&2; die "cmake configure failed (log: $build/configure.log)"; }
touch "$build/.configured"

wanted=(llama llama-cli llama-completion llama-server llama-bench llama-tokenize llama-quantize)
[ -z "$only" ] || wanted=("$only")
# The target list is read once into a variable: `cmake --target help | grep -q` under pipefail
# fails whenever grep stops reading before cmake has written everything (cmake gets SIGPIPE), which
# silently dropped llama-bench and llama-server from a build of the newest source.
available="$(cmake --build "$build" --target help 2>/dev/null)"
targets=()
for target in "${wanted[@]}"; do
    grep -q "^$target:" <<<"$available" && targets+=("$target")
done
[ ${#targets[@]} -gt 0 ] || die "this llama.cpp has no target ${wanted[*]}"
echo "build_llama_cpp: building ${targets[*]} with $jobs jobs (a while on 2 cores; log: $build/build.log)" >&2
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build/build.log" 2>&1 ||
    { tail -30 "$build/build.log" >&2; die "build failed (log: $build/build.log)"; }

# Prove the AMX path is really out: its buffer type is only compiled with __AMX_INT8__.
if [ -n "$amx_flags" ] && grep -q ggml_backend_amx_buffer_type <<<"$(nm -D --defined-only "$build/bin/libggml-cpu.so")"; then
    die "libggml-cpu.so still contains the AMX path despite $amx_flags"
fi

{
    echo "source: $source_dir ($source_label)"
    echo "flags: Release, GGML_NATIVE=ON, CPU only, shared, extra: ${amx_flags:-none}"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'); $machine"
    echo "built: $(date -u +%Y-%m-%dT%H:%MZ)"
} >"$build/VERSION"
[ -n "$only" ] || touch "$build/.complete"
print_outputs
