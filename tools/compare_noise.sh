#!/usr/bin/env bash
# How far apart the medians of repeated `verbsbench lat` runs fall in one
# boot of the Soft-RoCE test bed, natively and with both ends under the shim
# at +10 us one way: the figures behind the thresholds of the compare case in
# verbsbench/vm_tests.bats (docs/verbsbench.md, "Comparing two runs").
#   soft-roce/vm [--topology pair] -- tools/compare_noise.sh [--runs K] [--rounds N] [--out DIR]
# K native runs of N rounds of 8 B (default 8 and 10000), a shim run after
# every second one. Prints each run's median and minimum, then the spread:
# the largest native median over the smallest, and the smallest shim median
# over the largest native. A run whose median is over 3x its minimum (rounds
# waiting out the guest's timer ticks) is listed, not counted.
set -uo pipefail
runs=8 rounds=10000 out=test-results/compare-noise
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "compare_noise.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "${VERBSEMU_VM_ADDR0:-}" ] || { echo "compare_noise.sh: run it in the guest (soft-roce/vm -- ...)" >&2; exit 2; }
bin=${VERBSEMU_BIN:-bazel-bin}
vb=$bin/verbsbench/verbsbench jg=$bin/verbsbench/json_get shim=$bin/shim/verbsemu
for p in "$vb" "$jg" "$shim"; do
  [ -x "$p" ] || { echo "compare_noise.sh: $p missing: bazel build //verbsbench:verbsbench //verbsbench:json_get //shim:verbsemu //shim:libverbsemu.so" >&2; exit 2; }
done
mkdir -p "$out" || exit 2
port=22000

one() {  # TAG PREFIX... -> "TAG MEDIAN_NS MIN_NS" (nothing when the run failed)
  local tag=$1
  shift
  port=$((port + 2))
  rm -f "$out/$tag.json"
  timeout 300 "$@" "$vb" lat --bind "$VERBSEMU_VM_ADDR0" --port "$port" -s 8 -n "$rounds" -w 100 \
    --json "$out/$tag.json" -q 2>"$out/$tag.err" &
  local root=$!
  sleep 1
  timeout 300 "$@" "$vb" lat "$VERBSEMU_VM_ADDR0" --port "$port" -q >/dev/null 2>&1
  wait "$root" || return 0
  echo "$tag $("$jg" "$out/$tag.json" /results/0/stats/p50_ns) $("$jg" "$out/$tag.json" /results/0/stats/min_ns)"
}

for ((i = 1; i <= runs; i++)); do
  one "native_$i" env
  if ((i % 2 == 0)); then one "shim10_$i" "$shim" run --latency 10us --; fi
done | awk -v topo="${VERBSEMU_VM_TOPOLOGY:-?}" -v n="$rounds" '
  { printf "%-10s median %8.2f us  min %8.2f us", $1, $2 / 1000, $3 / 1000 }
  $2 > 3 * $3 { print "  (timer ticks: not counted)"; ticks++; next }
  { print ""; kind = ($1 ~ /^shim/) ? "s" : "n"
    if (!(kind in lo) || $2 < lo[kind]) lo[kind] = $2
    if (!(kind in hi) || $2 > hi[kind]) hi[kind] = $2; count[kind]++ }
  END {
    if (!count["n"] || !count["s"]) { print "too few clean runs to compare"; exit 1 }
    printf "%s, %d rounds: %d native medians %.2f-%.2f us (largest/smallest %.3f), %d shim medians %.2f-%.2f us (smallest shim/largest native %.3f), %d in timer ticks\n",
      topo, n, count["n"], lo["n"] / 1000, hi["n"] / 1000, hi["n"] / lo["n"],
      count["s"], lo["s"] / 1000, hi["s"] / 1000, lo["s"] / hi["n"], ticks
  }'
