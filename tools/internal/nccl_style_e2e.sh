#!/usr/bin/env bash
# The NCCL-style client's added latency end to end, in the test bed's pair
# topology: native and shim runs (both ends at +LAT us) alternate in one boot,
# with Debian's libibverbs and with a copy bound as Ubuntu's
# (soft-roce/symbolic/set_df_symbolic), and so do runs of the shim at +1 ns
# (active, its delay within its own fixed cost: what the shim itself costs a
# message). Prints, per library, every run's one-way t_min and median (the
# client's own figures, half the round trip) and the differences of the
# best t_min: the delay with the shim's own cost, and without it.
# Host side, first: bazel build //shim/... //soft-roce/symbolic:all
#   soft-roce/vm --topology pair -- tools/internal/nccl_style_e2e.sh [--rounds N] [--latency US] [--iters N]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
source tests/vm/lib.sh
rounds=7 lat=20 iters=5000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --latency) lat=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--latency US] [--iters N]" >&2; exit 2 ;;
  esac
done
bin=${VERBSEMU_BIN:-bazel-bin}
probe=$bin/shim/nccl_style_pingpong launcher=$bin/shim/verbsemu
if [ ! -x "$probe" ] || [ ! -x "$launcher" ]; then echo "build //shim/... first" >&2; exit 2; fi
ubuntu=$VM_LOGDIR/ubuntu-binding
mkdir -p "$ubuntu"
"$bin/soft-roce/symbolic/set_df_symbolic" /usr/lib/x86_64-linux-gnu/libibverbs.so.1 \
  "$ubuntu/libibverbs.so.1" >/dev/null || exit 1

# one LIBDIR PREFIX...: the client's "t_min median" line, or "fail".
one() {
  local libdir=$1 out
  shift
  out=$(env LD_LIBRARY_PATH="$libdir" "$@" tools/internal/nccl_style_pair.sh --iters "$iters" 2>/dev/null)
  echo "$out" | sed -n 's/.* t_min_us \([0-9.]*\) t_median_us \([0-9.]*\).*/\1 \2/p' | grep . || echo fail
}

# best BEST "T_MIN T_MEDIAN": the smaller t_min of the two ("fail" is none).
best() {
  printf '%s\n%s\n' "$1" "${2%% *}" | grep -E '^[0-9.]+$' | sort -g | head -n 1
}

for lib in debian ubuntu; do
  libdir=""
  [ "$lib" = ubuntu ] && libdir=$ubuntu
  best_n="" best_z="" best_s=""
  echo "## $lib libibverbs: one-way t_min and median (us), +$lat us on both ends"
  for ((r = 1; r <= rounds; r++)); do
    n=$(one "$libdir")
    z=$(one "$libdir" "$launcher" run --latency 1ns --)
    s=$(one "$libdir" "$launcher" run --latency "${lat}us" --)
    echo "round $r: native $n; shim at +1 ns $z; shim $s"
    best_n=$(best "$best_n" "$n") best_z=$(best "$best_z" "$z") best_s=$(best "$best_s" "$s")
  done
  awk -v n="$best_n" -v z="$best_z" -v s="$best_s" -v l="$lat" 'BEGIN {
    printf "best t_min: native %s, shim %s: added %.2f us for %s (%+.1f%%)\n", n, s, s - n, l, 100 * (s - n - l) / l
    printf "the shim at +1 ns (its own cost, no wait): %s, %+.2f us on native; the delay alone: %.2f us for %s (%+.1f%%)\n", z, z - n, s - z, l, 100 * (s - z - l) / l
  }'
done
