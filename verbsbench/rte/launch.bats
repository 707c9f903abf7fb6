#!/usr/bin/env bats
# verbsbench started by a launcher, on a host without an RDMA device: the
# launcher is recognised, the ranks meet over MPI (rank 0 reports its peers)
# and the run then stops at the missing device, every error one line from
# verbsbench; a plain run never initialises MPI; bad launcher variables and
# --rte values are one line and exit 2.

load ../../bazel/expect_error
load mpirun_env

setup() {
  mpirun_env
  verbsbench=$BATS_TEST_DIRNAME/../verbsbench
  # Whatever the launcher's variables say, from this shell down.
  unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE \
    SLURM_PROCID SLURM_STEP_NUM_TASKS
}

# mpirun_fails ARGS...: mpirun -np 3 verbsbench ARGS exits non-zero; both
# streams in $output.
mpirun_fails() {
  run timeout 120 mpirun -np 3 --oversubscribe --bind-to none -x ASAN_OPTIONS "$verbsbench" "$@" </dev/null
  [ "$status" != 0 ] || { echo "mpirun exited 0: $output"; return 1; }
}

# says REGEX: a line of $output matches the extended regex REGEX.
says() {
  printf '%s\n' "$output" | grep -Eq -- "$1" || { echo "no '$1' in: ${output:0:2000}"; return 1; }
}

@test "lop under mpirun: the ranks meet over MPI, then the device is missing" {
  mpirun_fails lop -n 10 --timeout 20
  says "met 2 peer\(s\) over MPI, ranks 1..2 \(Open MPI"
  says "^verbsbench: no RDMA device found"
}

# Every rank fails here, and mpirun may interleave their stderr writes.
@test "lat under 3 ranks is refused: it runs one root and one peer" {
  mpirun_fails lat --timeout 20
  says "lat runs one root and one peer: start 2 ranks, not 3$"
}

@test "--peers beyond the launcher's ranks is refused" {
  mpirun_fails lop -P 3 --timeout 20
  says "--peers 3 needs 4 ranks; the launcher started 3$"
}

# A plain run never initialises MPI: a pml that does not exist would make
# MPI_Init fail (the next case shows it does), yet the plain root only
# times out waiting for its TCP peer.
@test "a plain run leaves MPI alone" {
  expect_error --status 1 --stderr -E "^verbsbench: no peer connected within" \
    env OMPI_MCA_pml=no_such_pml "$verbsbench" lat -q --bind 127.0.0.1 --port 0 --timeout 0.3
}

@test "control: MPI_Init with a missing pml fails loudly" {
  run env OMPI_MCA_pml=no_such_pml timeout 60 "$verbsbench" lat --rte mpi </dev/null
  [ "$status" != 0 ] || { echo "exit 0: $output"; return 1; }
  [ "$(printf '%s\n' "$output" | grep -c .)" -ge 2 ] || { echo "not loud: $output"; return 1; }
}

@test "a bad --rte is one line, exit 2" {
  expect_error --status 2 --stderr -E "^verbsbench: bad --rte 'pmix' \(auto, tcp or mpi\)$" \
    "$verbsbench" lat --rte pmix
}

@test "a launcher rank that is no number is one line, exit 2" {
  expect_error --status 2 --stderr -E "^verbsbench: OMPI_COMM_WORLD_RANK='x' is not a process number" \
    env OMPI_COMM_WORLD_RANK=x OMPI_COMM_WORLD_SIZE=3 "$verbsbench" lat
}

@test "a HOST under a launcher means TCP: an unreachable peer, exit 1" {
  expect_error --status 1 --stderr -E "^verbsbench: peer 127.0.0.1:1 not reachable" \
    env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 "$verbsbench" lat -q 127.0.0.1 --port 1 --timeout 0.3
}

@test "a HOST with --rte mpi is refused, exit 2" {
  expect_error --status 2 --stderr -E "^verbsbench: HOST is for --rte tcp" \
    "$verbsbench" lat 127.0.0.1 --rte mpi
}

@test "--cm rdmacm with --rte mpi is refused, exit 2" {
  expect_error --status 2 --stderr -E "^verbsbench: --cm rdmacm needs --rte tcp" \
    "$verbsbench" lat --rte mpi --cm rdmacm
}
