#!/usr/bin/env bash
# Runs COMMAND with UCX on the MPI rank's own test-bed rxe device (rank r on
# VERBSEMU_VM_DEVr, exported by the guest's init), so two ranks in one guest
# talk over rxe and the veth pair rather than over loopback.
#   mpirun -np 2 ... tools/internal/rank_device.sh COMMAND [ARGS...]
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
dev_var="VERBSEMU_VM_DEV$rank"
port_var="VERBSEMU_VM_PORT$rank"
dev=${!dev_var:-}
if [ -z "$dev" ]; then
  echo "rank_device.sh: no test-bed device for rank $rank ($dev_var is not set; run in soft-roce/vm --topology pair)" >&2
  exit 2
fi
export UCX_NET_DEVICES="$dev:${!port_var:-1}"
exec "$@"
