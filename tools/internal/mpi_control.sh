#!/usr/bin/env bash
# Inside soft-roce/vm --topology pair --host-root: the MPI ping-pong's
# control. Open MPI over UCX from the host's root, 2 ranks each on its own
# rxe device (as tools/internal/e2e_slopes.sh runs NetPIPE), running
# bazel-bin/shim/mpi_pingpong; at each one-way latency of GRID (µs) the
# ranks busy-wait that long before each send themselves (--app-delay, no
# shim), then run under the shim at that latency (+1 ns at 0), alternating,
# ROUNDS times. Prints every run and, per arm, the smallest min and the
# median mean one-way time per latency with their slopes
# (tools/internal/control_summary): a test bed that lengthens every wait
# shows the same slopes in both arms.
#   soft-roce/vm --topology pair --host-root -- tools/internal/mpi_control.sh [ROUNDS] [GRID] [ITERS]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
rounds=${1:-5}
grid=${2:-0,10,20,30,40,50}
iters=${3:-2000}
die() { echo "mpi_control.sh: $*" >&2; exit 2; }
root=${VERBSEMU_VM_HOST_ROOT:-}
[ -n "$root" ] || die "run in the test bed with the host's root: soft-roce/vm --topology pair --host-root -- $0"
[ "${VERBSEMU_VM_TOPOLOGY:-}" = pair ] || die "needs the pair topology (one rxe device per rank)"
bin=bazel-bin
if [ ! -x "$bin/shim/mpi_pingpong" ] || [ ! -x "$bin/shim/verbsemu" ]; then
  die "build //shim:mpi_pingpong //shim:verbsemu //shim:libverbsemu.so first"
fi
chroot "$root" /bin/sh -c "command -v mpirun" >/dev/null || die "the host has no mpirun: run tools/bootstrap"

# one NS [LAUNCHER ARGS...]: rank 0's "min mean" (µs), or "fail".
one() {
  local ns=$1 out
  shift
  out=$(chroot "$root" /usr/bin/env -C "$PWD" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    UCX_TLS=rc_verbs,ud_verbs:aux,self UCX_ASYNC_MODE=poll "$@" \
    mpirun -np 2 --bind-to core --mca pml ucx --mca btl self --mca osc ucx \
    -x LD_PRELOAD -x VERBSEMU_LATENCY -x UCX_TLS -x UCX_ASYNC_MODE \
    tools/internal/rank_device.sh "$bin/shim/mpi_pingpong" -n "$iters" --app-delay "$ns" 2>/dev/null)
  echo "$out" | sed -n 's/.* mean_us \([0-9.]*\) min_us \([0-9.]*\).*/\2 \1/p' | grep . || echo "fail fail"
}

runs=${VM_LOGDIR:-/tmp}/mpi-control-runs
: >"$runs"
IFS=, read -r -a points <<<"$grid"
echo "## MPI control: one-way min and mean (us), the ranks' own wait and the shim's"
for ((r = 1; r <= rounds; r++)); do
  for l in "${points[@]}"; do
    ns=$(awk -v l="$l" 'BEGIN {printf "%.0f", l * 1000}')
    shim_lat=${l}us
    [ "$ns" = 0 ] && shim_lat=1ns
    a=$(one "$ns")
    s=$(one 0 "$bin/shim/verbsemu" run --latency "$shim_lat" --)
    echo "round $r latency $l: ranks' own wait $a; shim $s"
    printf 'app %s %s\nshim %s %s\n' "$l" "$a" "$l" "$s" >>"$runs"
  done
done
tools/internal/control_summary min mean <"$runs"
