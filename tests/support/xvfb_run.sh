#!/usr/bin/env bash
# Runs a test inside an X server of its own (Xvfb) with a screen of a given size, as a person's
# screen would be: the Qt offscreen platform has one fixed screen, so the layout tests need this.
#
#   xvfb_run.sh WxH SCALE SECONDS command [arguments...]
#
# SCALE is Qt's scale factor (QT_SCALE_FACTOR; 1 for none). The command runs with DISPLAY set,
# QT_QPA_PLATFORM=xcb, INFERLENS_TEST_SCREEN=WxH and INFERLENS_TEST_SCALE=SCALE, under a limit of
# SECONDS less 15, so that it ends (and the X server with it) before CTest's own timeout would kill
# this script. Without Xvfb it prints why and exits 77 (CTest's SKIP_RETURN_CODE).
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 WxH SCALE SECONDS command [arguments...]" >&2
  exit 2
fi
screen=$1 scale=$2 seconds=$3
shift 3

if ! command -v Xvfb > /dev/null; then
  echo "SKIPPED: Xvfb not installed (apt install xvfb)"
  exit 77
fi

dir="$(mktemp -d)"
xvfb_pid=""
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  if [ -n "$xvfb_pid" ]; then
    kill "$xvfb_pid" 2> /dev/null || true
    wait "$xvfb_pid" 2> /dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# -displayfd: Xvfb picks a free display number itself and writes it to the file once it accepts
# connections, so tests run in parallel without choosing numbers. -dpi 96: Qt's scale factor is
# then QT_SCALE_FACTOR alone.
exec {displayfd}> "$dir/display"
Xvfb -displayfd "$displayfd" -screen 0 "${screen}x24" -dpi 96 -nolisten tcp \
  > "$dir/xvfb.log" 2>&1 &
xvfb_pid=$!
exec {displayfd}>&-
# Should this script be killed outright (SIGKILL, no trap), the X server still goes.
parent=$$
( while kill -0 "$parent" 2> /dev/null; do sleep 1; done; kill "$xvfb_pid" 2> /dev/null ) \
  > /dev/null 2>&1 &

display=""
for _ in $(seq 100); do
  display="$(tr -dc 0-9 < "$dir/display")"
  [ -n "$display" ] && break
  if ! kill -0 "$xvfb_pid" 2> /dev/null; then
    echo "xvfb_run: Xvfb exited before it was ready:" >&2
    cat "$dir/xvfb.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$display" ]; then
  echo "xvfb_run: Xvfb was not ready after 10 s:" >&2
  cat "$dir/xvfb.log" >&2
  exit 1
fi

echo "xvfb_run: screen ${screen}, scale ${scale}, DISPLAY=:${display}"
unset WAYLAND_DISPLAY QT_SCREEN_SCALE_FACTORS QT_AUTO_SCREEN_SCALE_FACTOR QT_ENABLE_HIGHDPI_SCALING
export DISPLAY=":${display}" QT_QPA_PLATFORM=xcb
export INFERLENS_TEST_SCREEN="$screen" INFERLENS_TEST_SCALE="$scale"
if [ "$scale" = 1 ]; then
  unset QT_SCALE_FACTOR
else
  export QT_SCALE_FACTOR="$scale"
fi
limit=$((seconds > 30 ? seconds - 15 : seconds))
# In the background, so that a TERM or INT for this script is handled at once (bash runs traps
# only between foreground commands) and ends the test too.
timeout --kill-after=5 "$limit" "$@" &
test_pid=$!
trap 'kill "$test_pid" 2> /dev/null; exit 143' TERM
trap 'kill "$test_pid" 2> /dev/null; exit 130' INT
status=0
wait "$test_pid" || status=$?
[ "$status" -ne 124 ] || echo "xvfb_run: the test ran past ${limit} s" >&2
exit "$status"
