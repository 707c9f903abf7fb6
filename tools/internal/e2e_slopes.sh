#!/usr/bin/env bash
# Inside soft-roce/vm --topology pair --host-root: the end-to-end slopes of
# docs/accuracy.md, in one boot. `verbsemu sweep` over 0-50 us of added
# one-way latency, in spin and in defer mode:
#   - ib_send_lat (both ends under the shim), t_min of 10,000 iterations;
#   - an MPI ping-pong, NetPIPE's NPopenmpi (Debian's netpipe-openmpi, on
#     the host) on 2 ranks over UCX, each rank on its own rxe device: the
#     mean one-way time of 8-byte messages over 2,000 round trips;
#   - with `control` as the third argument instead, two sweeps with
#     --control (the program run without the shim, waiting each point's
#     latency on its own, --app-delay), each printing both slopes and their
#     ratio: the NCCL-style client's t_min (tools/internal/nccl_style_pair.sh,
#     5,000 iterations) and bazel-bin/shim/mpi_pingpong's mean over MPI as
#     above.
# Each sweep prints its slope and the shim's waits per µs asked beside it;
# OUT/{lat,mpi}-{spin,defer}/ hold runs.csv and sweep.json.
#   soft-roce/vm --topology pair --host-root --timeout 3600 -- \
#     tools/internal/e2e_slopes.sh [OUT] [REPEAT] [lat|mpi|all|control] [GRID]
# GRID defaults to 0,10us,20us,30us,40us,50us.
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${1:-e2e-slopes}
repeat=${2:-5}
which=${3:-all}
die() { echo "e2e_slopes.sh: $*" >&2; exit 2; }
root=${VERBSEMU_VM_HOST_ROOT:-}
[ -n "$root" ] || die "run in the test bed with the host's root: soft-roce/vm --topology pair --host-root -- $0"
[ "${VERBSEMU_VM_TOPOLOGY:-}" = pair ] || die "needs the pair topology (one rxe device per rank)"
case "$which" in lat|mpi|all|control) ;; *) die "the third argument is lat, mpi, all or control, not '$which'" ;; esac
if [ "$which" != lat ]; then
  for prog in mpirun NPopenmpi; do
    chroot "$root" /bin/sh -c "command -v $prog" >/dev/null ||
      die "the host has no $prog: run tools/bootstrap (Debian's openmpi-bin, netpipe-openmpi)"
  done
fi
grid=${4:-0,10us,20us,30us,40us,50us}
status=0

lat_sweep() {  # MODE
  VERBSEMU_LATENCY_MODE=$1 bazel-bin/shim/verbsemu sweep --latency "$grid" \
    --repeat "$repeat" --metric 'regex:t_min ([0-9.]+)' --metric-name "ib_send_lat t_min" \
    --metric-unit us --timeout 600s --no-plot --out "$out/lat-$1" \
    -- tools/internal/perftest_pair.sh ib_send_lat 64 10000 || status=1
}

mpi_sweep() {  # MODE
  # Under chroot the host's Open MPI, UCX and NetPIPE run; the repository
  # and Bazel's outputs are the guest's shares bound at the same paths.
  chroot "$root" /usr/bin/env -C "$PWD" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    UCX_TLS=rc_verbs,ud_verbs:aux,self UCX_ASYNC_MODE=poll VERBSEMU_LATENCY_MODE="$1" \
    bazel-bin/shim/verbsemu sweep --latency "$grid" --repeat "$repeat" \
    --metric 'regex:bytes +[0-9]+ times --> +[0-9.]+ Mbps in +([0-9.]+) usec' \
    --metric-name "MPI ping-pong mean one-way" --metric-unit us \
    --timeout 600s --no-plot --out "$out/mpi-$1" \
    -- mpirun -np 2 --bind-to core --mca pml ucx --mca btl self --mca osc ucx \
    -x LD_PRELOAD -x VERBSEMU_LATENCY -x VERBSEMU_BANDWIDTH -x VERBSEMU_BW_MODE \
    -x VERBSEMU_REPORT -x VERBSEMU_OVERHEAD -x VERBSEMU_RECV_OVERHEAD -x VERBSEMU_GAP \
    -x VERBSEMU_LATENCY_MODE -x UCX_TLS -x UCX_ASYNC_MODE \
    tools/internal/rank_device.sh NPopenmpi -l 8 -u 8 -n 2000 -p 0 -o /dev/null || status=1
}

# The NCCL-style client's t_min and //shim:mpi_pingpong's mean, each under
# the shim and as the sweep's --control with its own wait (spin mode).
control_sweep() {
  bazel-bin/shim/verbsemu sweep --latency "$grid" --repeat "$repeat" \
    --metric 'regex:t_min_us ([0-9.]+)' --metric-name "NCCL-style client t_min" \
    --metric-unit us --timeout 600s --no-plot --out "$out/tmin-control" \
    --control "tools/internal/nccl_style_pair.sh --app-delay {latency_ns}" \
    -- tools/internal/nccl_style_pair.sh || status=1
  local mpi=(mpirun -np 2 --bind-to core --mca pml ucx --mca btl self --mca osc ucx
    -x LD_PRELOAD -x VERBSEMU_LATENCY -x VERBSEMU_BANDWIDTH -x VERBSEMU_BW_MODE
    -x VERBSEMU_REPORT -x VERBSEMU_OVERHEAD -x VERBSEMU_RECV_OVERHEAD -x VERBSEMU_GAP
    -x UCX_TLS -x UCX_ASYNC_MODE
    tools/internal/rank_device.sh bazel-bin/shim/mpi_pingpong -n 2000)
  chroot "$root" /usr/bin/env -C "$PWD" \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    UCX_TLS=rc_verbs,ud_verbs:aux,self UCX_ASYNC_MODE=poll \
    bazel-bin/shim/verbsemu sweep --latency "$grid" --repeat "$repeat" \
    --metric 'regex:mean_us ([0-9.]+)' --metric-name "MPI ping-pong mean one-way" \
    --metric-unit us --timeout 600s --no-plot --out "$out/mpi-control" \
    --control "${mpi[*]} --app-delay {latency_ns}" -- "${mpi[@]}" || status=1
}

rm -rf "$out"
if [ "$which" = control ]; then
  control_sweep
  exit "$status"
fi
for mode in spin defer; do
  [ "$which" = mpi ] || lat_sweep "$mode"
  [ "$which" = lat ] || mpi_sweep "$mode"
done
exit "$status"
