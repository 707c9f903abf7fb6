#!/usr/bin/env bash
# Contention graphs in the test bed's star (soft-roce/vm --topology star:N
# --host-root), every rank under the shim pacing its port at RATE in latency
# MODE (spin: a post blocks until its release; defer: it queues, as on a
# NIC), with the egress alone, --fabric links or --fabric penalty: verbsbench contend's table
# and file (edges of SIZE in WRs of WR bytes), and contentionfit fit's
# comparison with max-min sharing (what links should give) and the paper's
# rules.
# PENALTIES (environment): --penalties for --fabric penalty (default mm2011-node).
# CONTEND_ARGS (environment): more options for verbsbench contend (--steady).
#   soft-roce/vm --topology star:4 --host-root --timeout 1200 -- \
#     tools/internal/contend_star.sh OUT_DIR FABRIC RATE SIZE REPS MODE WR GRAPH...
set -uo pipefail
[ $# -ge 8 ] || { echo "usage: tools/internal/contend_star.sh OUT_DIR FABRIC RATE SIZE REPS MODE WR GRAPH..." >&2; exit 2; }
out=$1 fabric=$2 rate=$3 size=$4 reps=$5 mode=$6 wr=$7
shift 7
root=${VERBSEMU_VM_HOST_ROOT:?boot with soft-roce/vm --host-root}
n=${VERBSEMU_VM_N:?boot with soft-roce/vm --topology star:N}
bin=${VERBSEMU_BIN:-$PWD/bazel-bin}
vb=$bin/verbsbench/verbsbench
shim=$bin/shim/verbsemu
mkdir -p "$out"
graphs=()
for g in "$@"; do graphs+=(-g "$g"); done
penalties=()
[ -z "${PENALTIES:-}" ] || penalties=(--penalties "$PENALTIES")
extra=()
[ -z "${CONTEND_ARGS:-}" ] || read -ra extra <<<"$CONTEND_ARGS"
ranks=()
for k in $(seq 0 $((n - 1))); do
  dev_var=VERBSEMU_VM_DEV$k gid_var=VERBSEMU_VM_GID$k
  [ "$k" = 0 ] || ranks+=(:)
  ranks+=(-np 1 "$shim" run --report "$out/report.$k" --bandwidth "$rate" --bw-mode pace
    --latency-mode "$mode" --fabric "$fabric" "${penalties[@]}" -- "$vb" contend -d "${!dev_var}"
    -x "${!gid_var}" --timeout 600)
  if [ "$k" = 0 ]; then
    ranks+=("${graphs[@]}" -s "$size" --wr-size "$wr" -r "$reps" --lead 100ms --wait yield
      --json "$out/contend.json" --csv "$out/contend.csv" "${extra[@]}")
  fi
done
chroot "$root" /usr/bin/env -C "$PWD" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  timeout 1100 mpirun --oversubscribe --bind-to none --mca pml ob1 --mca btl self,tcp \
  "${ranks[@]}" >"$out/contend.out" 2>&1 || { echo "mpirun exited $?"; tail -20 "$out/contend.out"; exit 1; }
cat "$out/contend.out"
"$bin/models/contention/contentionfit" fit "$out/contend.json" --models maxmin,mm2011-node >"$out/fit.out" 2>&1
head -30 "$out/fit.out"
