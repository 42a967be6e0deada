#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages that InferLens needs to build and test, skipping those already
# installed. Works on Debian 12 and Ubuntu 24.04; uses sudo when not run as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config  # toolchain
  clang                     # libFuzzer for tests/fuzz (its runtime: see below)
  lld                       # a faster linker for the suite's hundred executables (cmake/Linker.cmake)
  qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools  # Qt 6: Core, Test, Widgets, LinguistTools
  libqcustomplot-dev        # plots in the desktop app (QCustomPlotQt6)
  qt6-svg-dev               # SVG export of the panels (QSvgGenerator)
  libsentencepiece-dev      # tokenizers (tokenizer.model and GGUF vocabularies)
  libpcre2-dev              # Unicode regular expressions of byte-level BPE pre-tokenizers (Llama 3, Qwen2, ...)
  nlohmann-json3-dev        # config.json, safetensors headers, shard indexes
  libcurl4-openssl-dev      # HTTP(S) to generation servers (llama-server, vLLM, SGLang)
  fonts-wqy-microhei        # a CJK font, so that Chinese text is not drawn as empty boxes
  xvfb                      # an X server per layout test, with the screen size the test asks for
)
# Qt's X11 platform plugin (libqxcb.so), which the Xvfb tests and the app on an X desktop use, is in
# libqt6gui6 (Ubuntu: libqt6gui6t64), which qt6-base-dev already installs.

# libFuzzer's runtime comes with clang on Debian 12 and in libclang-rt-dev on Ubuntu 24.04.
if apt-cache show libclang-rt-dev > /dev/null 2>&1; then
  packages+=(libclang-rt-dev)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
