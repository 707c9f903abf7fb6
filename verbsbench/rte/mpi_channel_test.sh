#!/bin/sh
# The MPI channel between 3 real ranks on this host, under Open MPI's
# mpirun: Open MPI over shared memory and TCP only (the test sets the btl;
# verbsbench's own defaults set the pml), oversubscribed on small machines.
#   mpi_channel_test.sh PATH/TO/mpi_channel_check
check=$1
here=$(dirname "$0")
if ! command -v mpirun >/dev/null 2>&1; then
  echo "FAIL: mpirun not found: run tools/bootstrap (Debian package openmpi-bin)"
  exit 1
fi
# mpirun refuses root unless told twice (the test bed and CI run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's session directories (and PMIx's sockets) are named after
# mpirun's pid, which Bazel's sandbox numbers alike in every test's PID
# namespace: concurrent tests need directories of their own.
TMPDIR=${TEST_TMPDIR:-${TMPDIR:-/tmp}}
export TMPDIR
export OMPI_MCA_btl=self,tcp
# Under --config=asan: Open MPI 4.1 and PMIx dlclose their plugins before
# exit, so LeakSanitizer can neither name nor suppress what they keep past
# MPI_Finalize (45 reports, every stack "<unknown module>"). Leak checking
# stays on for verbsbench's own code in the unit tests; ASan's other checks
# stay on here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
timeout 240 mpirun -np 3 --oversubscribe --bind-to none -x ASAN_OPTIONS "$check"
rc=$?
[ "$rc" = 0 ] || echo "FAIL: mpirun -np 3 $check exited $rc"
exit "$rc"
