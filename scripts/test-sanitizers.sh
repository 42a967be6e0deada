#!/usr/bin/env bash
# The sanitizer runs of the test command (scripts/test.sh calls this): the whole suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (preset asan, LeakSanitizer included), and the
# engine's threading tests under ThreadSanitizer without Qt (preset tsan: Debian's Qt is not
# instrumented). CUDA is left out of both: the GPU code is checked by tests/gpu/check.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jobs="$(nproc)"

echo "== ASan + UBSan: the whole suite"
cmake --preset asan > build-asan.configure.log 2>&1 || { cat build-asan.configure.log; exit 1; }
cmake --build --preset asan --parallel "$jobs"
echo "== ASan build: $SECONDS s"
ctest --preset asan --timeout 1800 -j "$jobs"
echo "== ASan build and suite: $SECONDS s"

echo "== TSan: the threading tests"
cmake --preset tsan > build-tsan.configure.log 2>&1 || { cat build-tsan.configure.log; exit 1; }
cmake --build --preset tsan --parallel "$jobs"
ctest --preset tsan --timeout 900
echo "== ASan and TSan stages: $SECONDS s"
