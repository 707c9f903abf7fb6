#!/bin/sh
# verbsbench started by a launcher, on a host without an RDMA device: the
# launcher is recognised, the ranks meet over MPI (rank 0 reports its peers)
# and the run then stops at the missing device, every error one line from
# verbsbench; a plain run never initialises MPI; bad launcher variables and
# --rte values are one line and exit 2.
#   launch_test.sh PATH/TO/verbsbench
bin=$1
fails=0
pass() { echo "PASS $1"; }
fail() {
  echo "FAIL $1"
  fails=$((fails + 1))
}
# shellcheck source=verbsbench/rte/mpirun_env.sh
. "$(dirname "$0")/mpirun_env.sh"
# Whatever the launcher's variables say, from this shell down.
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMIX_RANK PMI_RANK PMI_SIZE \
  SLURM_PROCID SLURM_STEP_NUM_TASKS
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# mpi NAME EXPECTED_REGEX... -- ARGS: mpirun -np 3 verbsbench ARGS fails,
# and its output matches every regex.
mpi() {
  name=$1
  shift
  res=""
  while [ "$1" != "--" ]; do
    res="$res
$1"
    shift
  done
  shift
  if timeout 120 mpirun -np 3 --oversubscribe --bind-to none -x ASAN_OPTIONS "$bin" "$@" >"$out" 2>&1; then
    fail "$name: mpirun exited 0"
    return
  fi
  missing=$(printf '%s\n' "$res" | while IFS= read -r re; do
    [ -z "$re" ] || grep -Eq -- "$re" "$out" || echo "'$re'"
  done)
  if [ -n "$missing" ]; then
    fail "$name: no $missing in: $(head -c 2000 "$out")"
  else
    pass "$name"
  fi
}

mpi "lop: the ranks meet over MPI, then the device is missing" \
  "met 2 peer\(s\) over MPI, ranks 1..2 \(Open MPI" \
  "^verbsbench: no RDMA device found" -- lop -n 10 --timeout 20
# Every rank fails here, and mpirun may interleave their stderr writes.
mpi "lat under 3 ranks" \
  "lat runs one root and one peer: start 2 ranks, not 3$" -- lat --timeout 20
mpi "--peers against the launcher" \
  "--peers 3 needs 4 ranks; the launcher started 3$" -- lop -P 3 --timeout 20

# check NAME STATUS REGEX ENV... -- ARGS: one stderr line, that status.
check() {
  name=$1 want=$2 re=$3
  shift 3
  envs=""
  while [ "$1" != "--" ]; do
    envs="$envs $1"
    shift
  done
  shift
  # shellcheck disable=SC2086 # the NAME=VALUE words are meant to split
  err=$(env $envs "$bin" "$@" 2>&1 >/dev/null)
  rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" != "$want" ] || [ "$lines" != 1 ] || ! printf '%s' "$err" | grep -Eq "$re"; then
    fail "$name: exit $rc (want $want), $lines stderr lines: $err"
  else
    pass "$name: $err"
  fi
}

# A plain run never initialises MPI: a pml that does not exist would make
# MPI_Init fail (the control below shows it does), yet the plain root only
# times out waiting for its TCP peer.
check "plain run leaves MPI alone" 1 "^verbsbench: no peer connected within" \
  OMPI_MCA_pml=no_such_pml -- lat -q --bind 127.0.0.1 --port 0 --timeout 0.3
rc=0
err=$(OMPI_MCA_pml=no_such_pml timeout 60 "$bin" lat --rte mpi 2>&1) || rc=$?
if [ "$rc" = 0 ] || [ "$(printf '%s\n' "$err" | grep -c .)" -lt 2 ]; then
  fail "control: MPI_Init with a missing pml did not fail loudly: $err"
else
  pass "control: MPI_Init with a missing pml fails"
fi
check "bad --rte" 2 "^verbsbench: bad --rte 'pmix' \(auto, tcp or mpi\)$" -- lat --rte pmix
check "bad launcher rank" 2 "^verbsbench: OMPI_COMM_WORLD_RANK='x' is not a process number" \
  OMPI_COMM_WORLD_RANK=x OMPI_COMM_WORLD_SIZE=3 -- lat
check "HOST under a launcher is TCP" 1 "^verbsbench: peer 127.0.0.1:1 not reachable" \
  OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=3 -- lat -q 127.0.0.1 --port 1 --timeout 0.3
check "HOST with --rte mpi" 2 "^verbsbench: HOST is for --rte tcp" -- lat 127.0.0.1 --rte mpi
check "rdma_cm with --rte mpi" 2 "^verbsbench: --cm rdmacm needs --rte tcp" -- lat --rte mpi --cm rdmacm
[ "$fails" = 0 ]
