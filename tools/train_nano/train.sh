#!/usr/bin/env bash
# Rebuilds the bundled model from nothing: Debian's fortune packages → corpus → sentencepiece
# tokenizer → ChatGLM2-nano training → resources/models/inferlens-nano and tests/data/nano.
# About an hour on a 2-core CPU. Usage: tools/train_nano/train.sh [WORK_DIR]
# (NANO_EPOCHS=1 makes a quick trial run.)
#
# PyTorch: a virtual environment in WORK_DIR/venv with the versions below from PyPI (Debian's
# python3-torch 1.13 works too, about 2.5 times slower here: NANO_PYTHON=/usr/bin/python3).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="${1:-$root/build/train_nano}"
mkdir -p "$work"

packages=(fortunes-zh fortunes fortunes-min python3-venv)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
        missing+=("$package")
done
if ((${#missing[@]})); then
    echo "Installing ${missing[*]}"
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
    $sudo apt-get update -q && $sudo apt-get install -y -q "${missing[@]}"
fi

python="${NANO_PYTHON:-}"
if [[ -z "$python" ]]; then
    if [[ ! -x "$work/venv/bin/python" ]]; then
        /usr/bin/python3 -m venv "$work/venv"
        "$work/venv/bin/pip" install -q torch==2.15.0 numpy==2.4.6 sentencepiece==0.2.3 \
            matplotlib==3.11.2
    fi
    python="$work/venv/bin/python"
fi

cd "$here"
"$python" prepare_data.py "$work"
"$python" train_tokenizer.py "$work"
"$python" train.py "$work"
# NANO_MODEL_DIR / NANO_TEST_DATA_DIR: write elsewhere (a trial run that leaves the bundled model be).
"$python" export.py "$work" "${NANO_MODEL_DIR:-$root/resources/models/inferlens-nano}" \
    "${NANO_TEST_DATA_DIR:-$root/tests/data/nano}"
