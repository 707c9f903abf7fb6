#!/usr/bin/env bats
# perftest on rxe: latency and bandwidth tests complete with sane results,
# on the default ibv_wr_* path and with --use_old_post_send.
# Runs inside soft-roce/vm (either topology): tests/vm/run tests/vm/perftest.bats

load common

# perf_case KIND TEST SIZE ITERS [EXTRA...]: one server/client pair on ports
# and logs of its own; checks the client's result row. KIND lat: bytes iters
# t_min t_max t_typical t_avg t_stdev p99 p99.9; KIND bw: bytes iters bw_peak
# bw_avg msg_rate.
perf_case() {
  local kind=$1 test=$2 size=$3 iters=$4
  shift 4
  local port row tag=$test attempt
  for attempt in 1 2; do
    port=$(new_port)
    run_pair "$tag" 120 "tcp_listening $port" \
      -- "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" "$@" \
      -- "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$@" "$SERVER_ADDR" &&
      break
    # One new try only for perftest's own out-of-band failure (lib.sh).
    if [ "$attempt" = 2 ] || ! perftest_oob_failure "$tag"; then
      flunk "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
    fi
  done
  row=$(perftest_row "$VM_LOGDIR/$tag.client")
  if [ "$kind" = lat ] && echo "$row" | awk -v s="$size" -v n="$iters" \
    'NF >= 9 && $1 == s && $2 == n && $3 > 0 && $3 <= $5 && $5 <= $4 && $8 >= $5 {ok = 1} END {exit !ok}'; then
    echo "t_min $(echo "$row" | awk '{print $3}') us, t_typical $(echo "$row" | awk '{print $5}') us"
  elif [ "$kind" = bw ] && echo "$row" | awk -v s="$size" -v n="$iters" \
    'NF >= 5 && $1 == s && $2 == n && $4 > 0 && $3 >= $4 {ok = 1} END {exit !ok}'; then
    echo "$(echo "$row" | awk '{print $4}') MB/s"
  else
    flunk "unexpected result row '$row'" "$VM_LOGDIR/$tag.client"
  fi
}

@test "ib_send_lat" { perf_case lat ib_send_lat 64 500; }
@test "ib_write_lat" { perf_case lat ib_write_lat 64 500; }
@test "ib_read_lat" { perf_case lat ib_read_lat 64 500; }
@test "ib_send_bw" { perf_case bw ib_send_bw 65536 200; }
@test "ib_write_bw" { perf_case bw ib_write_bw 65536 200; }
@test "ib_send_lat --use_old_post_send" { perf_case lat ib_send_lat 64 500 --use_old_post_send; }
@test "ib_write_lat --use_old_post_send" { perf_case lat ib_write_lat 64 500 --use_old_post_send; }
@test "ib_read_lat --use_old_post_send" { perf_case lat ib_read_lat 64 500 --use_old_post_send; }
@test "ib_send_bw --use_old_post_send" { perf_case bw ib_send_bw 65536 200 --use_old_post_send; }
@test "ib_write_bw --use_old_post_send" { perf_case bw ib_write_bw 65536 200 --use_old_post_send; }
