#!/usr/bin/env bash
# Inside soft-roce/vm --topology pair --host-root: `verbsemu sweep` of an
# unmodified MPI application, LAMMPS (Debian's lammps and openmpi-bin,
# installed on the host) on 2 ranks over UCX, each rank on its own rxe
# device, shared memory off. The metric is LAMMPS's own "Loop time"; an
# ib_send_lat ping-pong swept in the same blocks normalises c_a.
# The system is small (256 atoms) and reduces its state every step, so
# communication is a visible share of a step even under the test bed's
# emulated CPU (about 10 ms per step there). Each rank has a vCPU of its own
# and UCX polls for its events rather than running a thread that the
# kernel must wake: less noise on 2 vCPUs, where rxe needs CPU time too.
# The ping-pong runs long enough (5,000 round trips) that its own start
# does not hide its slope.
# Blocks are added after the first REPEAT until the headline (c_a) is
# known within 25%, up to MAX_BLOCKS or until the runs' time would pass
# BUDGET: a user reads a decision (both intervals away from 0) and the
# latency LAMMPS absorbs within 5%, not a number lost in the test bed's
# noise.
#   soft-roce/vm --topology pair --host-root --timeout 1800 -- \
#     tools/internal/lammps_sweep.sh [OUT] [REPEAT] [STEPS] [MAX_BLOCKS] [BUDGET]
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${1:-sweep-demo/lammps}
repeat=${2:-3}
steps=${3:-500}
max_blocks=${4:-8}
budget=${5:-7m}
die() { echo "lammps_sweep.sh: $*" >&2; exit 2; }
root=${VERBSEMU_VM_HOST_ROOT:-}
[ -n "$root" ] || die "run in the test bed with the host's root: soft-roce/vm --topology pair --host-root -- $0"
[ "${VERBSEMU_VM_TOPOLOGY:-}" = pair ] || die "needs the pair topology (one rxe device per rank)"
for prog in mpirun lmp ib_send_lat; do
  # In the host's root: its links (/etc/alternatives) are absolute.
  chroot "$root" /bin/sh -c "command -v $prog" >/dev/null || die "the host has no /usr/bin/$prog: run tools/bootstrap (Debian's openmpi-bin, lammps, perftest)"
done
rm -rf "$out"
# Under chroot the host's Open MPI, UCX and LAMMPS run; the repository and
# Bazel's outputs are the guest's writable shares bound at the same paths.
exec chroot "$root" /usr/bin/env -C "$PWD" \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  UCX_TLS=rc_verbs,ud_verbs:aux,self UCX_ASYNC_MODE=poll \
  bazel-bin/shim/verbsemu sweep --latency 0,250us,500us,1ms \
  --repeat "$repeat" --precision 0.25 --max-blocks "$max_blocks" --budget "$budget" \
  --metric preset:lammps --timeout 600s \
  --pingpong "tools/internal/perftest_pair.sh ib_send_lat 2 5000" --out "$out" \
  -- mpirun -np 2 --bind-to core --mca pml ucx --mca btl self --mca osc ucx \
  -x LD_PRELOAD -x VERBSEMU_LATENCY -x VERBSEMU_BANDWIDTH -x VERBSEMU_BW_MODE \
  -x VERBSEMU_REPORT -x VERBSEMU_OVERHEAD -x VERBSEMU_RECV_OVERHEAD -x VERBSEMU_GAP \
  -x UCX_TLS -x UCX_ASYNC_MODE \
  tools/internal/rank_device.sh lmp -in tools/internal/lammps_lj.in -var cells 4 -var thermo 1 -var steps "$steps" -log none
