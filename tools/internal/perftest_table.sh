#!/usr/bin/env bash
# Runs inside the Soft-RoCE guest: perftest latency and bandwidth on rxe for
# one or more settings and prints one table.
#   perftest_table.sh [LABEL=WRAPPER ...]    default: native=
# WRAPPER is a command prefix run in front of both perftest ends (e.g. a
# verbsemu launcher invocation); empty means the application alone.
set -u
source "$(dirname "$0")/../../tests/vm/lib.sh"
have_rxe || { echo "perftest_table: no active rxe port (run inside soft-roce/vm)" >&2; exit 1; }
[ $# -gt 0 ] || set -- "native="

LAT_ITERS=${LAT_ITERS:-2000}
BW_ITERS=${BW_ITERS:-400}
BW_SIZE=${BW_SIZE:-65536}

measure() {  # WRAPPER TEST SIZE ITERS -> result row on stdout
  local wrapper=$1 test=$2 size=$3 iters=$4 port tag
  port=$(new_port)
  tag="${test}_$port"
  # shellcheck disable=SC2086  # the wrapper is a word list on purpose
  run_pair "$tag" 180 "tcp_listening $port" \
    -- $wrapper "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" \
    -- $wrapper "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$SERVER_ADDR" ||
    { echo "perftest_table: $test under '$wrapper' failed:" >&2; tail -n 5 "$VM_LOGDIR/$tag.client" >&2; return 1; }
  perftest_row "$VM_LOGDIR/$tag.client"
}

echo "perftest on Soft-RoCE ($TOPOLOGY topology: $SERVER_DEV <-> $CLIENT_DEV, kernel $(uname -r))"
printf '%-22s %-13s %8s %10s %12s %10s %12s\n' setting test bytes "t_min[us]" "t_typical[us]" "p99[us]" "BW[MB/s]"
rc=0
for row in "$@"; do
  label=${row%%=*}
  wrapper=${row#*=}
  for test in ib_send_lat ib_write_lat ib_read_lat; do
    if r=$(measure "$wrapper" "$test" 64 "$LAT_ITERS"); then
      echo "$r" | awk -v l="$label" -v t="$test" '{printf "%-22s %-13s %8d %10.2f %12.2f %10.2f %12s\n", l, t, $1, $3, $5, $8, "-"}'
    else
      rc=1
    fi
  done
  for test in ib_send_bw ib_write_bw; do
    if r=$(measure "$wrapper" "$test" "$BW_SIZE" "$BW_ITERS"); then
      echo "$r" | awk -v l="$label" -v t="$test" '{printf "%-22s %-13s %8d %10s %12s %10s %12.2f\n", l, t, $1, "-", "-", "-", $4}'
    else
      rc=1
    fi
  done
done
exit $rc
