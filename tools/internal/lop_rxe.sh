#!/usr/bin/env bash
# A real LoP run on rxe in the test bed (pair topology): mpirun -np P+1
# verbsbench lop, the root on rxe0 and the P peers on rxe1, every rank
# polling with sched_yield (--wait yield): P+1 spinning pollers on the
# guest's 2 vCPUs measure the scheduler's time slices, and event waits cost
# a 150 us wakeup per message under TCG (docs/verbsbench.md). Writes
# the run's JSON to OUT; models/lop's test data and docs/img come from it.
#   soft-roce/vm --topology pair --host-root --timeout 3000 -- \
#     tools/internal/lop_rxe.sh [--peers 8] [--iters 300] [--warmup 30] [--peer-wait W] [--rte mpi|tcp] [--shim FLAGS] OUT.json
# --peer-wait event: the peers sleep on completion events, the root spins.
# --rte tcp: the root and P peer processes meet over TCP instead (no mpirun).
# --shim FLAGS: every process under `verbsemu run FLAGS --` (one word list,
#   e.g. "--latency 200us --latency-mode defer": an emulated network whose
#   L is far above rxe's o_s).
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
PEERS=8 ITERS=300 WARMUP=30 PEER_WAIT=yield RTE=mpi OUT=
shim=()
while [ $# -gt 0 ]; do
  case "$1" in
    --peers) PEERS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --peer-wait) PEER_WAIT=$2; shift 2 ;;
    --rte) RTE=$2; shift 2 ;;
    --shim) read -r -a shim <<<"$2"; shift 2 ;;
    -*) echo "lop_rxe.sh: unknown option '$1'" >&2; exit 2 ;;
    *) OUT=$1; shift ;;
  esac
done
[ -n "$OUT" ] || { echo "lop_rxe.sh: name the output file (OUT.json)" >&2; exit 2; }
case "$PEER_WAIT" in
  yield) ROOT_WAIT=yield ;;
  event) ROOT_WAIT=spin ;;
  *) echo "lop_rxe.sh: --peer-wait is yield or event, not '$PEER_WAIT'" >&2; exit 2 ;;
esac
if ! have_rxe || [ "$TOPOLOGY" != pair ]; then
  echo "lop_rxe.sh: run it inside soft-roce/vm --topology pair --host-root" >&2
  exit 2
fi
VB=${VERBSEMU_BIN:-$PWD/bazel-bin}/verbsbench/verbsbench
[ -x "$VB" ] || { echo "lop_rxe.sh: build //verbsbench:verbsbench first" >&2; exit 2; }
# vb: how each process starts verbsbench (under the shim's launcher or not).
vb=("$VB")
if [ ${#shim[@]} -gt 0 ]; then
  launcher=${VERBSEMU_BIN:-$PWD/bazel-bin}/shim/verbsemu
  [ -x "$launcher" ] || { echo "lop_rxe.sh: --shim needs //shim:verbsemu and //shim:libverbsemu.so built" >&2; exit 2; }
  vb=("$launcher" run "${shim[@]}" -- "$VB")
fi
json="$VM_LOGDIR/lop_rxe.json"
start=$(date +%s)
root_args=(lop --wait "$ROOT_WAIT" -n "$ITERS" -w "$WARMUP" -d "$SERVER_DEV" -x "$SERVER_GID"
  --timeout 300 --json "$json")
peer_args=(lop --wait "$PEER_WAIT" -d "$CLIENT_DEV" -x "$CLIENT_GID" --timeout 300)
case "$RTE" in
  mpi)
    root=${VERBSEMU_VM_HOST_ROOT:-}
    [ -n "$root" ] || { echo "lop_rxe.sh: boot with soft-roce/vm --host-root (mpirun comes from the host)" >&2; exit 2; }
    chroot "$root" /usr/bin/env -C "$PWD" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun --oversubscribe --bind-to none -np 1 "${vb[@]}" "${root_args[@]}" : \
      -np "$PEERS" "${vb[@]}" "${peer_args[@]}" || { echo "lop_rxe.sh: mpirun failed" >&2; exit 1; }
    ;;
  tcp)
    port=$(new_ports 2)
    "${vb[@]}" "${root_args[@]}" --cm tcp --bind "$SERVER_ADDR" --port "$port" -P "$PEERS" &
    rpid=$!
    sleep 1
    pids=()
    for _ in $(seq "$PEERS"); do
      "${vb[@]}" "${peer_args[@]}" --cm tcp --port "$port" -q "$SERVER_ADDR" &
      pids+=($!)
    done
    rc=0
    for pid in "${pids[@]}" "$rpid"; do wait "$pid" || rc=1; done
    [ "$rc" = 0 ] || { echo "lop_rxe.sh: a verbsbench process failed" >&2; exit 1; }
    ;;
  *) echo "lop_rxe.sh: --rte is mpi or tcp, not '$RTE'" >&2; exit 2 ;;
esac
cp "$json" "$OUT" || exit 1
echo "lop_rxe.sh: $PEERS peers, $ITERS iterations per point, $(($(date +%s) - start)) s: $OUT"
