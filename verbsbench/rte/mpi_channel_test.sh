#!/bin/sh
# The MPI channel between 3 real ranks on this host, under Open MPI's
# mpirun: Open MPI over shared memory and TCP only (the test sets the btl;
# verbsbench's own defaults set the pml), oversubscribed on small machines.
#   mpi_channel_test.sh PATH/TO/mpi_channel_check
check=$1
# shellcheck source=verbsbench/rte/mpirun_env.sh
. "$(dirname "$0")/mpirun_env.sh"
export OMPI_MCA_btl=self,tcp
timeout 240 mpirun -np 3 --oversubscribe --bind-to none -x ASAN_OPTIONS "$check"
rc=$?
[ "$rc" = 0 ] || echo "FAIL: mpirun -np 3 $check exited $rc"
exit "$rc"
