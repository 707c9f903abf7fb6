#!/usr/bin/env bash
# One link per NIC port, in the test bed (pair topology): PAIRS ib_write_bw
# pairs at once from rxe1 to rxe0, natively and with every end under the
# shim pacing at SHARE of the port, alternating ROUNDS times. The shim's
# aggregate against the native one: every process pacing on a port shares
# its one virtual link, so four at 25% get 25% between them (a link per
# process would give each 25%). The link's rate handed to the shim is the
# round's native aggregate (rxe's port reports its netdev's nominal speed).
# Iteration mode (-n): in duration mode perftest counts only completions it
# polls inside its sample window, and a send queue of 128 paced posts is
# polled after it.
#   tools/internal/shared_link_pair.sh [--pairs 4] [--share 25] [--rounds 3] [--iters 160]
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
source shim/vm_lib.sh
PAIRS=4 SHARE=25 ROUNDS=3 ITERS=160
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) PAIRS=$2; shift 2 ;;
    --share) SHARE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    *) echo "shared_link_pair.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if ! have_rxe || [ "$TOPOLOGY" != pair ]; then
  echo "shared_link_pair.sh: run it inside soft-roce/vm --topology pair" >&2
  exit 2
fi
shim_ready || { echo "shared_link_pair.sh: build //shim:libverbsemu.so and //shim:verbsemu first" >&2; exit 2; }

# pairs_mb TAG LAUNCHER_WORDS...: starts every server, then every client at
# once; prints the sum of the clients' BW averages (MB/s; each over its own
# run, so pairs that end together add up to the aggregate), or nothing when
# a pair failed.
pairs_mb() {
  local tag=$1 i port pids=() sum=0 bw
  shift
  port=$(new_ports "$PAIRS")
  for i in $(seq 0 $((PAIRS - 1))); do
    timeout 300 "$@" ib_write_bw -d "$SERVER_DEV" -x "$SERVER_GID" -p $((port + i)) \
      -s 65536 -n "$ITERS" >"$VM_LOGDIR/${tag}_$i.server" 2>&1 &
  done
  for i in $(seq 0 $((PAIRS - 1))); do
    wait_until 60 tcp_listening $((port + i)) || return 0
  done
  for i in $(seq 0 $((PAIRS - 1))); do
    timeout 300 "$@" ib_write_bw -d "$CLIENT_DEV" -x "$CLIENT_GID" -p $((port + i)) \
      -s 65536 -n "$ITERS" "$SERVER_ADDR" >"$VM_LOGDIR/${tag}_$i.client" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || return 0; done
  wait
  for i in $(seq 0 $((PAIRS - 1))); do
    bw=$(perftest_row "$VM_LOGDIR/${tag}_$i.client" | awk '$1 == 65536 && $4 > 0 {print $4}')
    [ -n "$bw" ] || return 0
    sum=$(awk -v a="$sum" -v b="$bw" 'BEGIN {print a + b}')
  done
  echo "$sum"
}

echo "| round | native, $PAIRS pairs | shim at ${SHARE}% (pace), $PAIRS pairs | shim / native |"
echo "|---:|---:|---:|---:|"
ratios=()
for r in $(seq "$ROUNDS"); do
  native=$(pairs_mb "slp_native_$r")
  [ -n "$native" ] || { echo "| $r | (native pairs failed: $VM_LOGDIR) | | |"; continue; }
  # MB/s as perftest prints them (2^20 bytes) to bit/s.
  link=$(awk -v m="$native" 'BEGIN {printf "%.0fbit/s", m * 1048576 * 8}')
  shim=$(pairs_mb "slp_shim_$r" "$VERBSEMU" run --bandwidth "${SHARE}%" \
    --bw-mode pace --link-bandwidth "$link")
  [ -n "$shim" ] || { echo "| $r | $native MB/s | (shim pairs failed: $VM_LOGDIR) | |"; continue; }
  ratio=$(awk -v s="$shim" -v n="$native" 'BEGIN {printf "%.4f", s / n}')
  ratios+=("$ratio")
  echo "| $r | $native MB/s | $shim MB/s | $(awk -v x="$ratio" 'BEGIN {printf "%.1f%%", 100 * x}') |"
done
[ ${#ratios[@]} -gt 0 ] || exit 1
printf '%s\n' "${ratios[@]}" | sort -n |
  awk -v t="$SHARE" '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "median share of the native aggregate: %.1f%% (target %s%%)\n", 100 * m, t}'
