#!/usr/bin/env bats
# The MPI channel between 3 real ranks on this host, under Open MPI's
# mpirun: Open MPI over shared memory and TCP only (the test sets the btl;
# verbsbench's own defaults set the pml), oversubscribed on small machines.
# mpi_channel_check runs its GoogleTest cases on every rank; a failure on
# any rank fails the run.

load mpirun_env

setup() {
  mpirun_env
  check=$BATS_TEST_DIRNAME/mpi_channel_check
}

@test "3 ranks exchange over the MPI channel (Open MPI, shm and TCP)" {
  export OMPI_MCA_btl=self,tcp
  run timeout 240 mpirun -np 3 --oversubscribe --bind-to none -x ASAN_OPTIONS "$check" </dev/null
  echo "$output"
  [ "$status" = 0 ] || { echo "mpirun -np 3 $check exited $status"; return 1; }
}
