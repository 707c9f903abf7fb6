#!/usr/bin/env bash
# perftest on rxe: latency and bandwidth tests complete with sane results,
# on the default ibv_wr_* path and with --use_old_post_send.
# Runs inside soft-roce/vm (either topology).
source "$(dirname "$0")/lib.sh"

if ! have_rxe; then
  skip perftest "no active rxe port (run inside soft-roce/vm)"
  summary
  exit 0
fi

lat_case() {  # TEST SIZE ITERS [EXTRA...]
  local test=$1 size=$2 iters=$3
  shift 3
  local port name
  port=$(new_port)
  name="$test${*:+ $*} [$TOPOLOGY]"
  local tag="${test}_${port}"
  if ! run_pair "$tag" 120 "tcp_listening $port" \
    -- "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" "$@" \
    -- "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$@" "$SERVER_ADDR"; then
    fail "$name" "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
    return
  fi
  # bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9
  local row
  row=$(perftest_row "$VM_LOGDIR/$tag.client")
  if echo "$row" | awk -v s="$size" -v n="$iters" \
    'NF >= 9 && $1 == s && $2 == n && $3 > 0 && $3 <= $5 && $5 <= $4 && $8 >= $5 {ok = 1} END {exit !ok}'; then
    pass "$name: t_min $(echo "$row" | awk '{print $3}') us, t_typical $(echo "$row" | awk '{print $5}') us"
  else
    fail "$name" "unexpected result row '$row'" "$VM_LOGDIR/$tag.client"
  fi
}

bw_case() {  # TEST SIZE ITERS [EXTRA...]
  local test=$1 size=$2 iters=$3
  shift 3
  local port name
  port=$(new_port)
  name="$test${*:+ $*} [$TOPOLOGY]"
  local tag="${test}_${port}"
  if ! run_pair "$tag" 120 "tcp_listening $port" \
    -- "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" "$@" \
    -- "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$@" "$SERVER_ADDR"; then
    fail "$name" "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
    return
  fi
  # bytes iters bw_peak bw_avg msg_rate
  local row
  row=$(perftest_row "$VM_LOGDIR/$tag.client")
  if echo "$row" | awk -v s="$size" -v n="$iters" \
    'NF >= 5 && $1 == s && $2 == n && $4 > 0 && $3 >= $4 {ok = 1} END {exit !ok}'; then
    pass "$name: $(echo "$row" | awk '{print $4}') MB/s"
  else
    fail "$name" "unexpected result row '$row'" "$VM_LOGDIR/$tag.client"
  fi
}

for path in "" --use_old_post_send; do
  lat_case ib_send_lat 64 500 $path
  lat_case ib_write_lat 64 500 $path
  lat_case ib_read_lat 64 500 $path
  bw_case ib_send_bw 65536 200 $path
  bw_case ib_write_bw 65536 200 $path
done
summary
