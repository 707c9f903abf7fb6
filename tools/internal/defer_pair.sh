#!/usr/bin/env bash
# Spin against defer in the test bed (pair topology), native runs alternating
# with both modes ROUNDS times in one boot:
#   message rate: ib_write_bw, 64 B, ITERS iterations, +LAT us on both ends;
#   latency: ib_write_lat (or --lat-test), 64 B, LAT_ITERS iterations, +LAT us, judged on
#   t_min (the best iteration of each run; rxe in a TCG guest stalls whole
#   runs, which t_typical carries).
# Prints two markdown tables and, per mode, the median message rate as a
# share of native and the added t_min against the target.
#   tools/internal/defer_pair.sh [--latency 50] [--rounds 3] [--iters 20000] [--lat-iters 1000] [--only bw|lat] [--lat-test ib_send_lat]
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
source shim/vm_lib.sh
LAT=50 ROUNDS=3 ITERS=20000 LAT_ITERS=1000 ONLY='' LAT_TEST=ib_write_lat
while [ $# -gt 0 ]; do
  case "$1" in
    --latency) LAT=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --lat-iters) LAT_ITERS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --lat-test) LAT_TEST=$2; shift 2 ;;
    *) echo "defer_pair.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if ! have_rxe || [ "$TOPOLOGY" != pair ]; then
  echo "defer_pair.sh: run it inside soft-roce/vm --topology pair" >&2
  exit 2
fi
shim_ready || { echo "defer_pair.sh: build //shim:libverbsemu.so and //shim:verbsemu first" >&2; exit 2; }
PERF_TIMEOUT=600
export PERF_TIMEOUT

median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {if (NR == 0) exit
  printf "%.4f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
minimum() { printf '%s\n' "$@" | sort -n | head -n 1; }
flags_of() { # MODE -> perf_pair's launcher flags
  case "$1" in
    native) echo - ;;
    *) echo "--latency,${LAT}us,--latency-mode,$1" ;;
  esac
}

declare -A rate=() tmin=() ratio=() this_round=()
if [ "$ONLY" != lat ]; then
echo "### ib_write_bw 64 B, $ITERS iterations, +${LAT} us: message rate (Mpps)"
echo
echo "| round | native | spin | defer |"
echo "|---:|---:|---:|---:|"
for r in $(seq "$ROUNDS"); do
  row="| $r |"
  for mode in native spin defer; do
    v=$(perf_pair bw "dp_bw_${mode}_$r" ib_write_bw 64 "$ITERS" "$(flags_of "$mode")" | awk '{print $2}')
    rate[$mode]="${rate[$mode]:-} $v"
    row="$row ${v:-(failed)} |"
    this_round[$mode]=${v:-}
  done
  echo "$row"
  # Each round's modes ran back to back: their ratios to that round's native
  # run see the same load on the host.
  for mode in spin defer; do
    v=${this_round[$mode]} n=${this_round[native]}
    [ -n "$v" ] && [ -n "$n" ] &&
      ratio[$mode]="${ratio[$mode]:-} $(awk -v a="$v" -v b="$n" 'BEGIN {printf "%.4f", a / b}')"
  done
done
echo
fi
if [ "$ONLY" != bw ]; then
echo "### $LAT_TEST 64 B, $LAT_ITERS iterations, +${LAT} us: t_min (us)"
echo
echo "| round | native | spin | defer |"
echo "|---:|---:|---:|---:|"
for r in $(seq "$ROUNDS"); do
  row="| $r |"
  for mode in native spin defer; do
    perf_pair lat "dp_lat_${mode}_$r" "$LAT_TEST" 64 "$LAT_ITERS" "$(flags_of "$mode")" >/dev/null
    v=$(perftest_row "$VM_LOGDIR/dp_lat_${mode}_$r.client" | awk 'NF >= 9 && $3 > 0 {print $3}')
    tmin[$mode]="${tmin[$mode]:-} $v"
    row="$row ${v:-(failed)} |"
  done
  echo "$row"
done
echo
fi
nat_rate='' nat_min=''
# shellcheck disable=SC2086 # word lists on purpose
[ -n "${rate[native]:-}" ] && nat_rate=$(median ${rate[native]})
# shellcheck disable=SC2086
[ -n "${tmin[native]:-}" ] && nat_min=$(minimum ${tmin[native]})
for mode in spin defer; do
  line="$mode:"
  if [ -n "$nat_rate" ]; then
    # shellcheck disable=SC2086
    m=$(median ${rate[$mode]:-})
    # shellcheck disable=SC2086
    q=$(median ${ratio[$mode]:-})
    line="$line $(awk -v m="$m" -v n="$nat_rate" -v q="${q:-0}" 'BEGIN {printf "message rate %.1f%% of native (median of the rounds), %.1f%% (median of the per-round ratios);", 100 * m / n, 100 * q}')"
  fi
  if [ -n "$nat_min" ]; then
    # shellcheck disable=SC2086
    t=$(minimum ${tmin[$mode]:-})
    line="$line $(awk -v t="$t" -v b="$nat_min" -v l="$LAT" 'BEGIN {printf "best t_min %.2f -> %.2f us: +%.2f us for +%g us (%+.1f%%)", b, t, t - b, l, 100 * (t - b - l) / l}')"
  fi
  echo "$line"
done
