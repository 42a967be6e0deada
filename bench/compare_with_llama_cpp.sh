#!/usr/bin/env bash
# Speed of InferLens against llama.cpp on the same GGUF file, the same machine and the same thread
# count: `inferlens-cli bench` and `llama-bench` alternate in pairs (the order swaps every pair),
# and the table gives each side's tokens/s, the ratio InferLens / llama.cpp of every pair and the
# median ratio, per thread count and test (ppP = prompt processing, tgG = generation). The read
# bandwidth (../shared/tools/membw.c) is measured before and after, in the same run: these machines
# have noisy bandwidth, so compare only figures taken side by side.
#
# Usage: bench/compare_with_llama_cpp.sh [options] MODEL.gguf [THREADS...]   (default threads: 1 2)
#   --pairs N            alternating pairs per thread count (default 5)
#   --prompt-tokens P    prompt lengths, comma-separated (default 128; e.g. 128,512)
#   --gen-tokens G       generated tokens (default 64)
#   --keep DIR           keep every raw output in DIR
# Environment:
#   INFERLENS_BUILD_DIR  where inferlens-cli was built (default ./build)
#   LLAMA_BENCH          llama-bench to use (default: the one tools/build_llama_cpp.sh built into
#                        .cache/llama.cpp-build/bin/, else the one on PATH)
#   MEMBW_SRC            membw.c (default ../shared/tools/membw.c beside the repository)
#
# Differences to keep in mind: llama-bench runs a warm-up before each test and measures tg from an
# empty context, InferLens measures decode right after its prompt (a few hundred more KV positions:
# a little more attention work per step). InferLens's tg figure comes from the run with the first
# prompt length; runs with the other lengths generate one token only. A file InferLens cannot load
# (a type it does not support, e.g. Q2_K) is reported as unsupported and llama.cpp is measured
# alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

die() {
    echo "compare_with_llama_cpp: $*" >&2
    exit 1
}
note() { echo "compare_with_llama_cpp: $*" >&2; }

pairs=5
prompts=128
gen=64
keep=""
positional=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pairs) pairs="${2:?--pairs needs a value}"; shift 2 ;;
        --prompt-tokens) prompts="${2:?--prompt-tokens needs a value}"; shift 2 ;;
        --gen-tokens) gen="${2:?--gen-tokens needs a value}"; shift 2 ;;
        --keep) keep="${2:?--keep needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) positional+=("$1"); shift ;;
    esac
done
[ ${#positional[@]} -ge 1 ] || die "usage: $0 [options] MODEL.gguf [THREADS...] (see --help)"
model="${positional[0]}"
threads=("${positional[@]:1}")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)

[[ "$pairs" =~ ^[1-9][0-9]*$ ]] || die "--pairs must be a positive integer, not '$pairs'"
[[ "$gen" =~ ^[1-9][0-9]*$ && "$gen" -ge 2 ]] || die "--gen-tokens must be an integer >= 2, not '$gen'"
[[ "$prompts" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--prompt-tokens must be like 128 or 128,512"
for t in "${threads[@]}"; do
    [[ "$t" =~ ^[1-9][0-9]*$ ]] || die "thread counts must be positive integers, not '$t'"
done
IFS=, read -r -a prompt_list <<<"$prompts"
[ -f "$model" ] || die "model file not found: $model (make one with 'inferlens-cli synth', see README)"
model="$(cd "$(dirname "$model")" && pwd)/$(basename "$model")"

cli="${INFERLENS_BUILD_DIR:-$root/build}/app/cli/inferlens-cli"
[ -x "$cli" ] || die "inferlens-cli not found at $cli: build it with ./scripts/build.sh (or set INFERLENS_BUILD_DIR)"
our_llama_bench="${INFERLENS_CACHE_DIR:-$root/.cache}/llama.cpp-build/bin/llama-bench"
[ -x "$our_llama_bench" ] || our_llama_bench="$(command -v llama-bench || true)"
LLAMA_BENCH="${LLAMA_BENCH:-$our_llama_bench}"
[ -n "$LLAMA_BENCH" ] && [ -x "$LLAMA_BENCH" ] || die "no llama-bench: run tools/build_llama_cpp.sh, or point LLAMA_BENCH at one"
command -v python3 >/dev/null || die "python3 is needed to read the JSON results"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "$keep" ]; then
    mkdir -p "$keep" || die "cannot create $keep"
    work_out="$(cd "$keep" && pwd)"
else
    work_out="$work"
fi

membw_src="${MEMBW_SRC:-$root/../shared/tools/membw.c}"
membw=""
if [ ! -f "$membw_src" ]; then
    note "warning: $membw_src not found (set MEMBW_SRC): no bandwidth measurement"
elif ! cc -O3 -march=native -fopenmp "$membw_src" -o "$work/membw" 2>"$work/membw.log"; then
    note "warning: could not compile $membw_src (needs cc with OpenMP): no bandwidth measurement"
else
    membw="$work/membw"
fi
measure_bandwidth() {  # $1: before|after
    [ -n "$membw" ] || return 0
    note "measuring read bandwidth ($1)"
    "$membw" 5 1024 >"$work_out/membw-$1.txt" 2>/dev/null || note "warning: membw failed"
}

# InferLens: one run per prompt length; only the first generates --gen-tokens (for tg).
inferlens_unsupported=""
run_inferlens() {  # $1 threads, $2 pair
    local p g index=0
    for p in "${prompt_list[@]}"; do
        g=1
        [ "$index" -eq 0 ] && g="$gen"
        index=$((index + 1))
        if ! "$cli" bench --model "$model" --prompt-tokens "$p" --gen-tokens "$g" --threads "$1" \
            --json >"$work_out/inferlens-t$1-pair$2-p$p.json" 2>"$work/inferlens.err"; then
            inferlens_unsupported="$(grep -v '^\s*$' "$work/inferlens.err" | tail -3 | tr '\n' ' ')"
            rm -f "$work_out/inferlens-t$1-pair$2-p$p.json"
            note "InferLens cannot run this file, measuring llama.cpp alone: $inferlens_unsupported"
            return 0
        fi
    done
}
run_llama_cpp() {  # $1 threads, $2 pair
    "$LLAMA_BENCH" -m "$model" -p "$prompts" -n "$gen" -t "$1" -r 1 -o json \
        >"$work_out/llama_cpp-t$1-pair$2.json" 2>"$work/llama_cpp.err" ||
        die "llama-bench failed on $model:
$(tail -15 "$work/llama_cpp.err")"
}

measure_bandwidth before
for t in "${threads[@]}"; do
    for pair in $(seq "$pairs"); do
        # Swap the order every pair, so that neither side always runs on a warmer machine.
        if [ $((pair % 2)) -eq 1 ]; then order=(inferlens llama_cpp); else order=(llama_cpp inferlens); fi
        for side in "${order[@]}"; do
            [ "$side" = inferlens ] && [ -n "$inferlens_unsupported" ] && continue
            SECONDS=0
            if [ "$side" = inferlens ]; then run_inferlens "$t" "$pair"; else run_llama_cpp "$t" "$pair"; fi
            note "threads $t, pair $pair/$pairs: $side took ${SECONDS} s"
        done
    done
done
measure_bandwidth after

[ -n "$inferlens_unsupported" ] && echo "$inferlens_unsupported" >"$work_out/inferlens-unsupported.txt"
# tools/build_llama_cpp.sh writes VERSION beside bin/; a source tree's build has it two levels up.
llama_version="unknown (no VERSION file beside the build)"
for version_file in "$(dirname "$LLAMA_BENCH")/../VERSION" "$(dirname "$LLAMA_BENCH")/../../VERSION"; do
    [ -f "$version_file" ] && { llama_version="$(head -3 "$version_file" | tr '\n' ';')"; break; }
done
inferlens_version="$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"

python3 - "$work_out" "$model" "$gen" "$prompts" "$llama_version" "$inferlens_version" "${threads[@]}" <<'PYTHON'
import glob, json, os, re, statistics, sys

out, model, gen, prompts, llama_version, inferlens_version = sys.argv[1:7]
threads = [int(t) for t in sys.argv[7:]]
gen = int(gen)
prompts = [int(p) for p in prompts.split(",")]
tests = [f"pp{p}" for p in prompts] + [f"tg{gen}"]

def pair_of(path):
    return int(re.search(r"-pair(\d+)", path).group(1))

# speeds[(engine, threads, test)][pair] = tokens/s
speeds = {}
weight_bytes = model_size = None
for t in threads:
    for path in glob.glob(os.path.join(out, f"inferlens-t{t}-pair*-p*.json")):
        run = json.load(open(path))
        weight_bytes = run.get("weight_bytes", weight_bytes)
        if run["threads"] != t:
            print(f"note: InferLens ran with {run['threads']} threads when asked for {t}")
        speeds.setdefault(("inferlens", t, f"pp{run['prompt_tokens']}"), {})[pair_of(path)] = \
            run["prefill_tokens_per_s"]
        if run["gen_tokens"] == gen:
            speeds.setdefault(("inferlens", t, f"tg{gen}"), {})[pair_of(path)] = \
                run["decode_tokens_per_s"]
    for path in glob.glob(os.path.join(out, f"llama_cpp-t{t}-pair*.json")):
        for run in json.load(open(path)):
            model_size = run.get("model_size", model_size)
            test = f"pp{run['n_prompt']}" if run["n_gen"] == 0 else f"tg{run['n_gen']}"
            speeds.setdefault(("llama_cpp", t, test), {})[pair_of(path)] = run["avg_ts"]

def fmt(values, digits=2):
    return " / ".join(f"{v:.{digits}f}" for v in values) if values else "–"

def bandwidth(name):
    path = os.path.join(out, f"membw-{name}.txt")
    if not os.path.exists(path):
        return "not measured"
    found = re.findall(r"threads=(\d) read_GBps\s+median=([\d.]+) min=([\d.]+) max=([\d.]+)",
                       open(path).read())
    return ", ".join(f"{t} thread{'s' if t != '1' else ''} {med} GB/s (min {lo}, max {hi})"
                     for t, med, lo, hi in found)

unsupported = os.path.join(out, "inferlens-unsupported.txt")
print()
print(f"file: {model} ({os.path.getsize(model) / 1e9:.2f} GB)")
print(f"InferLens {inferlens_version}; llama.cpp {llama_version}")
with open("/proc/cpuinfo") as cpuinfo:
    cpu = next((l.split(":", 1)[1].strip() for l in cpuinfo if l.startswith("model name")), "?")
print(f"machine: {cpu}, {os.cpu_count()} logical CPUs")
print(f"read bandwidth before: {bandwidth('before')}")
print(f"read bandwidth after:  {bandwidth('after')}")
if os.path.exists(unsupported):
    print("InferLens: unsupported, skipped: " + open(unsupported).read().strip())
print()
print("| file | threads | test | InferLens tok/s (per pair) | llama.cpp tok/s (per pair) "
      "| ratio per pair | median ratio | tg GB/s (InferLens / llama.cpp) |")
print("|---|---|---|---|---|---|---|---|")
for t in threads:
    for test in tests:
        ours = speeds.get(("inferlens", t, test), {})
        theirs = speeds.get(("llama_cpp", t, test), {})
        both = sorted(set(ours) & set(theirs))
        ratios = [ours[p] / theirs[p] for p in both if theirs[p] > 0]
        median_ratio = f"**{statistics.median(ratios):.3f}**" if ratios else "–"
        ours_text = fmt([ours[p] for p in sorted(ours)]) if ours else "unsupported"
        gbps = "–"
        if test.startswith("tg") and (ours or theirs):
            a = f"{statistics.median(ours.values()) * weight_bytes / 1e9:.1f}" if ours and weight_bytes else "–"
            b = f"{statistics.median(theirs.values()) * model_size / 1e9:.1f}" if theirs and model_size else "–"
            gbps = f"{a} / {b}"
        print(f"| {os.path.basename(model)} | {t} | {test} | {ours_text} | "
              f"{fmt([theirs[p] for p in sorted(theirs)])} | {fmt(ratios, 3)} | {median_ratio} | {gbps} |")
PYTHON
[ -n "$keep" ] && note "raw outputs kept in $work_out"
exit 0
