#!/usr/bin/env bash
# Runs COMMAND with UCX on the MPI rank's own test-bed rxe device (rank r on
# VERBSEMU_VM_DEVr, exported by the guest's init), so two ranks in one guest
# talk over rxe and the veth pair rather than over loopback.
#   mpirun -np 2 ... tools/internal/rank_device.sh COMMAND [ARGS...]
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
dev_var="VERBSEMU_VM_DEV$rank"
port_var="VERBSEMU_VM_PORT$rank"
gid_var="VERBSEMU_VM_GID$rank"
netdev_var="VERBSEMU_VM_NETDEV$rank"
dev=${!dev_var:-}
if [ -z "$dev" ]; then
  echo "rank_device.sh: no test-bed device for rank $rank ($dev_var is not set; run in soft-roce/vm --topology pair)" >&2
  exit 2
fi
# The netdev too, for UCX's TCP wireup lane when UCX_TLS names tcp.
export UCX_NET_DEVICES="$dev:${!port_var:-1}${!netdev_var:+,${!netdev_var}}"
# The RoCE v2 GID that carries the device's IPv4 address: UCX's default
# (index 0, the link-local one) does not route between the veth pair's ends.
[ -n "${!gid_var:-}" ] && export UCX_IB_GID_INDEX="${!gid_var}"
exec "$@"
