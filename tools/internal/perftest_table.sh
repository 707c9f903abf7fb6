#!/usr/bin/env bash
# Runs inside the Soft-RoCE guest: perftest latency and bandwidth on rxe for
# one or more settings and prints one table, each setting compared with the
# first (added t_typical for latency, % of its bandwidth).
#   perftest_table.sh [LABEL=WRAPPER ...]    default: native=
# WRAPPER is a command prefix run in front of both perftest ends (e.g.
# "bazel-bin/shim/verbsemu run --latency 2us"); empty means the program alone.
set -u
# shellcheck source=tests/vm/lib.sh
source "$(dirname "$0")/../../tests/vm/lib.sh"
have_rxe || { echo "perftest_table: no active rxe port (run inside soft-roce/vm)" >&2; exit 1; }
[ $# -gt 0 ] || set -- "native="

LAT_ITERS=${LAT_ITERS:-2000}
BW_ITERS=${BW_ITERS:-400}
BW_SIZE=${BW_SIZE:-65536}
LAT_TESTS=${LAT_TESTS:-ib_send_lat ib_write_lat ib_read_lat}
BW_TESTS=${BW_TESTS:-ib_send_bw ib_write_bw}

measure() {  # WRAPPER TEST SIZE ITERS -> result row on stdout
  local wrapper=$1 test=$2 size=$3 iters=$4 port tag
  port=$(new_port)
  tag="${test}_$port"
  # shellcheck disable=SC2086  # the wrapper is a word list on purpose
  run_pair "$tag" 300 "tcp_listening $port" \
    -- $wrapper "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" \
    -- $wrapper "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$SERVER_ADDR" ||
    { echo "perftest_table: $test under '$wrapper' failed:" >&2; tail -n 5 "$VM_LOGDIR/$tag.client" >&2; return 1; }
  perftest_row "$VM_LOGDIR/$tag.client"
}

echo "perftest on Soft-RoCE ($TOPOLOGY topology: $SERVER_DEV <-> $CLIENT_DEV, kernel $(uname -r))"
printf '%-24s %-12s %7s %9s %11s %9s %9s %9s %9s\n' setting test bytes "t_min" "t_typical" "p99" "+t_typ" "BW[MB/s]" "BW[%]"
declare -A base=()
rc=0
for row in "$@"; do
  label=${row%%=*}
  wrapper=${row#*=}
  for test in $LAT_TESTS; do
    r=$(measure "$wrapper" "$test" 64 "$LAT_ITERS") || { rc=1; continue; }
    typ=$(echo "$r" | awk '{print $5}')
    [ -n "${base[$test]:-}" ] || base[$test]=$typ
    echo "$r" | awk -v l="$label" -v t="$test" -v b="${base[$test]}" \
      '{printf "%-24s %-12s %7d %9.2f %11.2f %9.2f %9.2f %9s %9s\n", l, t, $1, $3, $5, $8, $5 - b, "-", "-"}'
  done
  for test in $BW_TESTS; do
    r=$(measure "$wrapper" "$test" "$BW_SIZE" "$BW_ITERS") || { rc=1; continue; }
    bw=$(echo "$r" | awk '{print $4}')
    [ -n "${base[$test]:-}" ] || base[$test]=$bw
    echo "$r" | awk -v l="$label" -v t="$test" -v b="${base[$test]}" \
      '{printf "%-24s %-12s %7d %9s %11s %9s %9s %9.2f %9.1f\n", l, t, $1, "-", "-", "-", "-", $4, 100 * $4 / b}'
  done
done
echo "t_* in us (RTT/2, perftest's t_typical is the median); +t_typ: added to the first row's t_typical."
exit $rc
