#!/usr/bin/env bash
# One perftest latency pair inside soft-roce/vm (server on the first device,
# client on the second), both ends inheriting this environment: under
# `verbsemu sweep`, both get the shim and the point's settings. Prints the
# client's output, then "t_min X t_typical Y" (us). Exit 1 when the pair
# failed (perftest's out-of-band exchange on rxe gets one new try).
#   tools/internal/perftest_pair.sh TEST SIZE ITERS [PERFTEST FLAGS...]
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
source shim/vm_lib.sh
[ $# -ge 3 ] || { echo "usage: $0 TEST SIZE ITERS [FLAGS...]" >&2; exit 2; }
have_rxe || { echo "perftest_pair.sh: no active rxe port; run it inside soft-roce/vm" >&2; exit 2; }
test=$1 size=$2 iters=$3
shift 3
tag="pair_$$"
t=$(perf_pair lat "$tag" "$test" "$size" "$iters" - "$@")
cat "$VM_LOGDIR/$tag.client" 2>/dev/null
[ -n "$t" ] || { echo "perftest_pair.sh: $test did not complete" >&2; exit 1; }
perftest_row "$VM_LOGDIR/$tag.client" | awk '{printf "t_min %s t_typical %s\n", $3, $5}'
