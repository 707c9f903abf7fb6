#!/usr/bin/env bash
# Replays a committed fuzz corpus through a fuzz target (see fuzz.bzl).
#   fuzz_replay.sh FUZZER CORPUS_DIR
set -euo pipefail
fuzzer=$1 corpus=$2
[ -d "$corpus" ] || { echo "fuzz_replay: no corpus directory $corpus" >&2; exit 1; }
count=$(find -L "$corpus" -maxdepth 1 -type f | wc -l)
[ "$count" -gt 0 ] || { echo "fuzz_replay: corpus $corpus is empty" >&2; exit 1; }
"$fuzzer" "$corpus"
