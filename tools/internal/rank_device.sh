#!/usr/bin/env bash
# Runs COMMAND with UCX on the MPI rank's own test-bed rxe device (rank r on
# VERBSEMU_VM_DEVr, exported by the guest's init), so two ranks in one guest
# talk over rxe and the veth pair rather than over loopback. In the single
# topology every rank shares rxe0.
#   mpirun -np 2 ... tools/internal/rank_device.sh COMMAND [ARGS...]
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
[ -n "${VERBSEMU_VM_DEV1:-}" ] || rank=0
dev_var="VERBSEMU_VM_DEV$rank"
port_var="VERBSEMU_VM_PORT$rank"
gid_var="VERBSEMU_VM_GID$rank"
dev=${!dev_var:-}
if [ -z "$dev" ]; then
  echo "rank_device.sh: no test-bed device ($dev_var is not set; run inside soft-roce/vm)" >&2
  exit 2
fi
export UCX_NET_DEVICES="$dev:${!port_var:-1}"
# The RoCE v2 GID that carries the device's IPv4 address.
[ -n "${!gid_var:-}" ] && export UCX_IB_GID_INDEX="${!gid_var}"
# UCX before 1.19 reads a UD completion's sl as the RoCE packet type, which
# only mlx5 reports; on rxe it reads 0 (IPv6), so every IPv4 UD packet fails
# the destination-GID check and is dropped, and wireup times out (UCX PR
# #10209). Without the check UD takes every packet its QP receives; here
# each QP has one peer.
export UCX_UD_VERBS_ETH_DGID_CHECK=n
exec "$@"
