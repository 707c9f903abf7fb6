# shellcheck shell=bash
# For the bats suites that run Open MPI's mpirun on this host (`load
# mpirun_env`, then mpirun_env in setup). CI and the test bed run as root, in
# Bazel's sandbox, maybe under --config=asan.

# mpirun_env: fails when there is no mpirun; sets up the environment mpirun
# needs here.
mpirun_env() {
  if ! command -v mpirun >/dev/null 2>&1; then
    echo "mpirun not found: run tools/bootstrap (Debian package openmpi-bin)"
    return 1
  fi
  # mpirun refuses root unless told twice.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Open MPI's session directories (and PMIx's sockets) are named after
  # mpirun's pid, which Bazel's sandbox numbers alike in every test's PID
  # namespace: concurrent tests need directories of their own.
  TMPDIR=${TEST_TMPDIR:-${TMPDIR:-/tmp}}
  export TMPDIR
  # Under --config=asan: Open MPI 4.1 and PMIx dlclose their plugins before
  # exit, so LeakSanitizer can neither name nor suppress what they keep past
  # MPI_Finalize (45 reports, every stack "<unknown module>"). Leak checking
  # stays on for verbsbench's own code in the unit tests; ASan's other checks
  # stay on here. mpirun passes it on with -x ASAN_OPTIONS.
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}
