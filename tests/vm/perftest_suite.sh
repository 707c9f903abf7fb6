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

# perf_case KIND TEST SIZE ITERS [EXTRA...]: one server/client pair; checks
# the client's result row. KIND lat: bytes iters t_min t_max t_typical t_avg
# t_stdev p99 p99.9; KIND bw: bytes iters bw_peak bw_avg msg_rate.
perf_case() {
  local kind=$1 test=$2 size=$3 iters=$4
  shift 4
  local port name tag row
  port=$(new_port)
  name="$test${*:+ $*} [$TOPOLOGY]"
  tag="${test}_${port}"
  if ! run_pair "$tag" 120 "tcp_listening $port" \
    -- "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" "$@" \
    -- "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$@" "$SERVER_ADDR"; then
    fail "$name" "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
    return
  fi
  row=$(perftest_row "$VM_LOGDIR/$tag.client")
  if [ "$kind" = lat ] && echo "$row" | awk -v s="$size" -v n="$iters" \
    'NF >= 9 && $1 == s && $2 == n && $3 > 0 && $3 <= $5 && $5 <= $4 && $8 >= $5 {ok = 1} END {exit !ok}'; then
    pass "$name: t_min $(echo "$row" | awk '{print $3}') us, t_typical $(echo "$row" | awk '{print $5}') us"
  elif [ "$kind" = bw ] && echo "$row" | awk -v s="$size" -v n="$iters" \
    'NF >= 5 && $1 == s && $2 == n && $4 > 0 && $3 >= $4 {ok = 1} END {exit !ok}'; then
    pass "$name: $(echo "$row" | awk '{print $4}') MB/s"
  else
    fail "$name" "unexpected result row '$row'" "$VM_LOGDIR/$tag.client"
  fi
}

for path in "" --use_old_post_send; do
  perf_case lat ib_send_lat 64 500 $path
  perf_case lat ib_write_lat 64 500 $path
  perf_case lat ib_read_lat 64 500 $path
  perf_case bw ib_send_bw 65536 200 $path
  perf_case bw ib_write_bw 65536 200 $path
done
summary
