#!/usr/bin/env bash
# Inside soft-roce/vm --topology pair --host-root: `verbsemu sweep` of an
# unmodified MPI application, LAMMPS (Debian's lammps and openmpi-bin,
# installed on the host) on 2 ranks over UCX, each rank on its own rxe
# device, shared memory off. The metric is LAMMPS's own "Loop time"; an
# ib_send_lat ping-pong swept in the same blocks normalises c_a.
#   soft-roce/vm --topology pair --host-root --timeout 1800 -- \
#     tools/internal/lammps_sweep.sh [OUT] [REPEAT] [STEPS]
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${1:-sweep-demo/lammps}
repeat=${2:-3}
steps=${3:-200}
die() { echo "lammps_sweep.sh: $*" >&2; exit 2; }
root=${VERBSEMU_VM_HOST_ROOT:-}
[ -n "$root" ] || die "run in the test bed with the host's root: soft-roce/vm --topology pair --host-root -- $0"
[ "${VERBSEMU_VM_TOPOLOGY:-}" = pair ] || die "needs the pair topology (one rxe device per rank)"
for prog in mpirun lmp ib_send_lat; do
  [ -x "$root/usr/bin/$prog" ] || die "the host has no /usr/bin/$prog: run tools/bootstrap (Debian's openmpi-bin, lammps, perftest)"
done
rm -rf "$out"
# Under chroot the host's Open MPI, UCX and LAMMPS run; the repository and
# Bazel's outputs are the guest's writable shares bound at the same paths.
exec chroot "$root" /usr/bin/env -C "$PWD" \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  UCX_TLS=rc_verbs,ud_verbs,self \
  bazel-bin/shim/verbsemu sweep --latency 0,10us,20us,40us \
  --repeat "$repeat" --metric 'regex:Loop time of ([0-9.]+)' --timeout 600s \
  --pingpong "tools/internal/perftest_pair.sh ib_send_lat 2 1000" --out "$out" \
  -- mpirun -np 2 --bind-to none --mca pml ucx --mca btl self --mca osc ucx \
  -x LD_PRELOAD -x VERBSEMU_LATENCY -x VERBSEMU_BANDWIDTH -x VERBSEMU_BW_MODE \
  -x VERBSEMU_REPORT -x UCX_TLS \
  tools/internal/rank_device.sh lmp -in tools/internal/lammps_lj.in -var steps "$steps" -log none
