#!/usr/bin/env bash
# Downloads the .deb files of the libraries the engine needs (sentencepiece and its protobuf
# runtime, PCRE2 for the byte-level BPE pre-tokenizers, nlohmann-json) into .gpu-debs/ (ignored by git), for tests/gpu/check.sh on a GPU machine
# that has no network and none of our Debian packages. Run it where apt works (Debian 12 /
# Ubuntu 24.04); the files are small (about 2.3 MB) and travel with the working tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$root/.gpu-debs"
cd "$root/.gpu-debs"
apt-get download libsentencepiece-dev libsentencepiece0 libprotobuf-lite32 nlohmann-json3-dev \
  libpcre2-dev libpcre2-8-0
ls -l "$root/.gpu-debs"
