#!/usr/bin/env bash
# Speed of InferLens against one or more llama.cpp builds on the same GGUF file, the same machine
# and the same thread count: `inferlens-cli bench` and each build's `llama-bench` take turns in
# rounds ("pairs"; the order rotates every round), and the table gives every side's tokens/s, the
# ratio InferLens / that build of every round and the median ratio, per thread count and test
# (ppP = prompt processing, tgG = generation), and the median ratio against the fastest build (the
# peer). InferLens's own share of the machine's limits (`inferlens-cli bench`: decode of the read
# bandwidth, prompt of the int8 peak) is given too. The machine's read bandwidth and int8 peak
# (bench_machine_limits, else ../shared/tools/membw.c) are measured before and after, in the same
# run: these machines have noisy bandwidth, so compare only figures taken side by side.
#
# Usage: bench/compare_with_llama_cpp.sh [options] MODEL.gguf [THREADS...]   (default threads: 1 2)
#   --llama-cpp PATH     a llama.cpp build to compare with: its build folder (with bin/llama-bench)
#                        or a llama-bench executable; repeat for several builds (e.g. b4747 and the
#                        newest). Default: $LLAMA_BENCH, else the build tools/build_llama_cpp.sh
#                        made in .cache/llama.cpp-build/, else llama-bench on PATH
#   --pairs N            alternating rounds per thread count (default 5)
#   --prompt-tokens P    prompt lengths, comma-separated (default 128; e.g. 128,512)
#   --gen-tokens G       generated tokens (default 64)
#   --keep DIR           keep every raw output in DIR
# Environment:
#   INFERLENS_BUILD_DIR  where inferlens-cli was built (default ./build)
#   LLAMA_BENCH          llama-bench executables, separated by ':' (when no --llama-cpp is given)
#   MEMBW_SRC            membw.c, used when bench_machine_limits was not built (default
#                        ../shared/tools/membw.c beside the repository)
#
# Both sides run an untimed warm-up first: llama-bench its own, InferLens `bench --warmup` (on the
# AMD Zen 4 kind its cold prompts had measured 0-1 % slower, now and then 4-13 %). Differences to
# keep in mind: llama-bench measures tg from an empty context, InferLens decode right after its
# prompt (a few hundred more KV positions: a little more attention work per step). InferLens's tg
# figure comes from the run with the first prompt length; runs with the other lengths generate one
# token only. A file InferLens cannot load
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
llama_paths=()
positional=()
while [ $# -gt 0 ]; do
    case "$1" in
        --pairs) pairs="${2:?--pairs needs a value}"; shift 2 ;;
        --prompt-tokens) prompts="${2:?--prompt-tokens needs a value}"; shift 2 ;;
        --gen-tokens) gen="${2:?--gen-tokens needs a value}"; shift 2 ;;
        --keep) keep="${2:?--keep needs a folder}"; shift 2 ;;
        --llama-cpp) llama_paths+=("${2:?--llama-cpp needs a build folder or llama-bench}"); shift 2 ;;
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
if [ ${#llama_paths[@]} -eq 0 ]; then
    if [ -n "${LLAMA_BENCH:-}" ]; then
        IFS=: read -r -a llama_paths <<<"$LLAMA_BENCH"
    else
        our_llama_bench="${INFERLENS_CACHE_DIR:-$root/.cache}/llama.cpp-build/bin/llama-bench"
        [ -x "$our_llama_bench" ] || our_llama_bench="$(command -v llama-bench || true)"
        [ -n "$our_llama_bench" ] || die "no llama-bench: run tools/build_llama_cpp.sh, or pass --llama-cpp"
        llama_paths=("$our_llama_bench")
    fi
fi
# Every build as its llama-bench executable and a version line (tools/build_llama_cpp.sh writes
# VERSION beside bin/; a source tree's build has it two levels up).
llama_benches=()
llama_versions=()
for path in "${llama_paths[@]}"; do
    [ -d "$path" ] && path="$path/bin/llama-bench"
    [ -x "$path" ] && [ -f "$path" ] || die "no llama-bench at $path (--llama-cpp takes a build folder or llama-bench)"
    path="$(cd "$(dirname "$path")" && pwd)/$(basename "$path")"
    version="unknown (no VERSION file beside the build)"
    for version_file in "$(dirname "$path")/../VERSION" "$(dirname "$path")/../../VERSION"; do
        [ -f "$version_file" ] && { version="$(head -3 "$version_file" | tr '\n' ';')"; break; }
    done
    llama_benches+=("$path")
    llama_versions+=("$path: $version")
done
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
machine_limits="${INFERLENS_BUILD_DIR:-$root/build}/bench/bench_machine_limits"
if [ -x "$machine_limits" ]; then
    :
elif [ ! -f "$membw_src" ]; then
    note "warning: $membw_src not found (set MEMBW_SRC): no bandwidth measurement"
elif ! cc -O3 -march=native -fopenmp "$membw_src" -o "$work/membw" 2>"$work/membw.log"; then
    note "warning: could not compile $membw_src (needs cc with OpenMP): no bandwidth measurement"
else
    membw="$work/membw"
fi
measure_bandwidth() {  # $1: before|after
    local most="${threads[0]}" t
    for t in "${threads[@]}"; do [ "$t" -gt "$most" ] && most="$t"; done
    if [ -x "$machine_limits" ]; then
        note "measuring read bandwidth and int8 peaks ($1)"
        "$machine_limits" "$most" >"$work_out/machine-$1.txt" 2>/dev/null || note "warning: bench_machine_limits failed"
        return 0
    fi
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
            --warmup --json >"$work_out/inferlens-t$1-pair$2-p$p.json" 2>"$work/inferlens.err"; then
            inferlens_unsupported="$(grep -v '^\s*$' "$work/inferlens.err" | tail -3 | tr '\n' ' ')"
            rm -f "$work_out/inferlens-t$1-pair$2-p$p.json"
            note "InferLens cannot run this file, measuring llama.cpp alone: $inferlens_unsupported"
            return 0
        fi
    done
}
run_llama_cpp() {  # $1 build index, $2 threads, $3 pair
    "${llama_benches[$1]}" -m "$model" -p "$prompts" -n "$gen" -t "$2" -r 1 -o json \
        >"$work_out/llama_cpp$1-t$2-pair$3.json" 2>"$work/llama_cpp.err" ||
        die "llama-bench ${llama_benches[$1]} failed on $model:
$(tail -15 "$work/llama_cpp.err")"
}

measure_bandwidth before
for t in "${threads[@]}"; do
    for pair in $(seq "$pairs"); do
        # Rotate the order every round, so that no side always runs on a warmer machine.
        sides=(inferlens)
        for index in "${!llama_benches[@]}"; do sides+=("$index"); done
        shift_by=$(((pair - 1) % ${#sides[@]}))
        order=("${sides[@]:$shift_by}" "${sides[@]:0:$shift_by}")
        for side in "${order[@]}"; do
            [ "$side" = inferlens ] && [ -n "$inferlens_unsupported" ] && continue
            SECONDS=0
            if [ "$side" = inferlens ]; then
                run_inferlens "$t" "$pair"
                name=inferlens
            else
                run_llama_cpp "$side" "$t" "$pair"
                name="llama.cpp #$((side + 1))"
            fi
            note "threads $t, round $pair/$pairs: $name took ${SECONDS} s"
        done
    done
done
measure_bandwidth after

[ -n "$inferlens_unsupported" ] && echo "$inferlens_unsupported" >"$work_out/inferlens-unsupported.txt"
printf '%s\n' "${llama_versions[@]}" >"$work_out/llama_cpp-versions.txt"
inferlens_version="$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"

python3 - "$work_out" "$model" "$gen" "$prompts" "$inferlens_version" "${threads[@]}" <<'PYTHON'
import glob, json, os, re, statistics, sys

out, model, gen, prompts, inferlens_version = sys.argv[1:6]
threads = [int(t) for t in sys.argv[6:]]
builds = open(os.path.join(out, "llama_cpp-versions.txt")).read().splitlines()
gen = int(gen)
prompts = [int(p) for p in prompts.split(",")]
tests = [f"pp{p}" for p in prompts] + [f"tg{gen}"]
engines = ["inferlens"] + [f"llama_cpp{i}" for i in range(len(builds))]

def pair_of(path):
    return int(re.search(r"-pair(\d+)", path).group(1))

# speeds[(engine, threads, test)][pair] = tokens/s; shares[(threads, test)][pair] = InferLens's
# fraction of the machine's limit (prompt: of the int8 peak, decode: of the read bandwidth)
speeds, shares = {}, {}
weight_bytes = None
model_sizes = {}
for t in threads:
    for path in glob.glob(os.path.join(out, f"inferlens-t{t}-pair*-p*.json")):
        run = json.load(open(path))
        weight_bytes = run.get("weight_bytes", weight_bytes)
        if run["threads"] != t:
            print(f"note: InferLens ran with {run['threads']} threads when asked for {t}")
        pp = f"pp{run['prompt_tokens']}"
        speeds.setdefault(("inferlens", t, pp), {})[pair_of(path)] = run["prefill_tokens_per_s"]
        if "prefill_fraction_of_int8_peak" in run:
            shares.setdefault((t, pp), {})[pair_of(path)] = run["prefill_fraction_of_int8_peak"]
        if run["gen_tokens"] == gen:
            tg = f"tg{gen}"
            speeds.setdefault(("inferlens", t, tg), {})[pair_of(path)] = run["decode_tokens_per_s"]
            if "decode_fraction_of_read_bandwidth" in run:
                shares.setdefault((t, tg), {})[pair_of(path)] = run["decode_fraction_of_read_bandwidth"]
    for index in range(len(builds)):
        engine = f"llama_cpp{index}"
        for path in glob.glob(os.path.join(out, f"{engine}-t{t}-pair*.json")):
            for run in json.load(open(path)):
                model_sizes[engine] = run.get("model_size", model_sizes.get(engine))
                test = f"pp{run['n_prompt']}" if run["n_gen"] == 0 else f"tg{run['n_gen']}"
                speeds.setdefault((engine, t, test), {})[pair_of(path)] = run["avg_ts"]

def fmt(values, digits=2):
    return " / ".join(f"{v:.{digits}f}" for v in values) if values else "–"

def limits(name):
    path = os.path.join(out, f"machine-{name}.txt")
    if os.path.exists(path):
        return "; ".join(line.strip() for line in open(path) if line.strip())
    path = os.path.join(out, f"membw-{name}.txt")
    if not os.path.exists(path):
        return "not measured"
    found = re.findall(r"threads=(\d) read_GBps\s+median=([\d.]+) min=([\d.]+) max=([\d.]+)",
                       open(path).read())
    return ", ".join(f"{t} thread{'s' if t != '1' else ''} {med} GB/s (min {lo}, max {hi})"
                     for t, med, lo, hi in found)

def median(values):
    return statistics.median(values) if values else None

unsupported = os.path.join(out, "inferlens-unsupported.txt")
print()
print(f"file: {model} ({os.path.getsize(model) / 1e9:.2f} GB)")
print(f"InferLens {inferlens_version}")
for index, build in enumerate(builds):
    print(f"llama.cpp #{index + 1}: {build}")
with open("/proc/cpuinfo") as cpuinfo:
    cpu = next((l.split(":", 1)[1].strip() for l in cpuinfo if l.startswith("model name")), "?")
print(f"machine: {cpu}, {os.cpu_count()} logical CPUs")
print(f"machine limits before: {limits('before')}")
print(f"machine limits after:  {limits('after')}")
if os.path.exists(unsupported):
    print("InferLens: unsupported, skipped: " + open(unsupported).read().strip())
print()
header = "| file | threads | test | InferLens tok/s (per round) | InferLens share of limit |"
rule = "|---|---|---|---|---|"
for index in range(len(builds)):
    n = index + 1
    header += f" llama.cpp #{n} tok/s | ratio per round vs #{n} | median ratio vs #{n} |"
    rule += "---|---|---|"
header += " median ratio vs fastest | tg GB/s (InferLens / " + " / ".join(
    f"#{i + 1}" for i in range(len(builds))) + ") |"
rule += "---|---|"
print(header)
print(rule)
for t in threads:
    for test in tests:
        ours = speeds.get(("inferlens", t, test), {})
        share = median(list(shares.get((t, test), {}).values()))
        row = (f"| {os.path.basename(model)} | {t} | {test} | "
               f"{fmt([ours[p] for p in sorted(ours)]) if ours else 'unsupported'} | "
               f"{f'{share:.3f}' if share is not None else '–'} |")
        fastest, fastest_ratios = None, []
        rates = [f"{median(list(ours.values())) * weight_bytes / 1e9:.1f}"
                 if ours and weight_bytes else "–"]
        for index in range(len(builds)):
            engine = f"llama_cpp{index}"
            theirs = speeds.get((engine, t, test), {})
            both = sorted(set(ours) & set(theirs))
            ratios = [ours[p] / theirs[p] for p in both if theirs[p] > 0]
            median_ratio = f"**{median(ratios):.3f}**" if ratios else "–"
            row += f" {fmt([theirs[p] for p in sorted(theirs)])} | {fmt(ratios, 3)} | {median_ratio} |"
            if theirs and (fastest is None or median(list(theirs.values())) > fastest):
                fastest, fastest_ratios = median(list(theirs.values())), ratios
            size = model_sizes.get(engine)
            rates.append(f"{median(list(theirs.values())) * size / 1e9:.1f}"
                         if theirs and size else "–")
        row += f" {f'**{median(fastest_ratios):.3f}**' if fastest_ratios else '–'} |"
        row += f" {' / '.join(rates) if test.startswith('tg') else '–'} |"
        print(row)
PYTHON
[ -n "$keep" ] && note "raw outputs kept in $work_out"
exit 0
