#!/usr/bin/env bash
# A real LogGP run on rxe in the test bed (pair topology): verbsbench loggp
# with the root on rxe0 and its peer on rxe1, meeting over TCP. Both poll
# with sched_yield (--wait yield): rxe's packet processing runs in the
# guest's kernel, and two pure spinners on its 2 vCPUs leave it the timer
# ticks only (medians of 8 ms at some sizes in a spinning run). Writes the run's JSON to
# OUT; models/loggp's test data and docs/fitting.md's figures come from it.
#   soft-roce/vm --topology pair --timeout 3000 -- \
#     tools/internal/loggp_rxe.sh [--iters 300] [--warmup 30] [--n 16] [--sizes 1:16K] \
#       [--shim "VERBSEMU RUN FLAGS"] OUT.json
# --shim: both processes under `verbsemu run FLAGS --` (build //shim:all),
# e.g. --shim "--bandwidth 100Mbit/s --bw-mode pace --latency-mode defer".
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
ITERS=300 WARMUP=30 N=16 SIZES=1:16K SHIM_FLAGS="" OUT=
while [ $# -gt 0 ]; do
  case "$1" in
    --iters) ITERS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --n) N=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --shim) SHIM_FLAGS=$2; shift 2 ;;
    -*) echo "loggp_rxe.sh: unknown option '$1'" >&2; exit 2 ;;
    *) OUT=$1; shift ;;
  esac
done
[ -n "$OUT" ] || { echo "loggp_rxe.sh: name the output file (OUT.json)" >&2; exit 2; }
if ! have_rxe || [ "$TOPOLOGY" != pair ]; then
  echo "loggp_rxe.sh: run it inside soft-roce/vm --topology pair" >&2
  exit 2
fi
VB=${VERBSEMU_BIN:-$PWD/bazel-bin}/verbsbench/verbsbench
[ -x "$VB" ] || { echo "loggp_rxe.sh: build //verbsbench:verbsbench first" >&2; exit 2; }
PREFIX=()
if [ -n "$SHIM_FLAGS" ]; then
  shim=${VERBSEMU_BIN:-$PWD/bazel-bin}/shim/verbsemu
  [ -x "$shim" ] || { echo "loggp_rxe.sh: build //shim:all first" >&2; exit 2; }
  read -ra flags <<<"$SHIM_FLAGS"
  PREFIX=("$shim" run "${flags[@]}" --)
fi
json="$VM_LOGDIR/loggp_rxe.json"
start=$(date +%s)
port=$(new_ports 2)
"${PREFIX[@]}" "$VB" loggp --wait yield -n "$ITERS" -w "$WARMUP" --loggp-n "$N" -s "$SIZES" -d "$SERVER_DEV" -x "$SERVER_GID" \
  --cm tcp --bind "$SERVER_ADDR" --port "$port" --timeout 300 --json "$json" &
rpid=$!
sleep 1
"${PREFIX[@]}" "$VB" loggp -d "$CLIENT_DEV" -x "$CLIENT_GID" --cm tcp --port "$port" --timeout 300 -q "$SERVER_ADDR" &
ppid=$!
rc=0
for pid in "$ppid" "$rpid"; do wait "$pid" || rc=1; done
[ "$rc" = 0 ] || { echo "loggp_rxe.sh: a verbsbench process failed" >&2; exit 1; }
cp "$json" "$OUT" || exit 1
echo "loggp_rxe.sh: ${SHIM_FLAGS:+shim $SHIM_FLAGS, }n = $N, sizes $SIZES, $ITERS iterations per point, $(($(date +%s) - start)) s: $OUT"
