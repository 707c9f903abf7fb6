#!/bin/bash
# plot.sh end to end: a lat run gives one PDF/CDF PNG per histogram plus the
# CDF overlay, a lop run gives the RTT/overhead/latency/prediction PNGs, and
# bad input fails with one line.
set -u
PLOT="$1"
export LOPFIT="$2" HISTDAT="$3"
T="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

is_png() {  # file, min width
  [[ -s "$1" ]] || return 1
  [[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || return 1
  # IHDR width (bytes 16..19, big endian).
  local w
  w=$(od -An -tu1 -j16 -N4 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
  [[ "$w" -eq 1000 ]]
}

"$PLOT" -o "$T/lat" tools/plot/testdata/lat_rxe.json >"$T/lat.out" 2>"$T/lat.err" ||
  fail "lat run exited $?: $(cat "$T/lat.err")"
for f in hist_results_0_stats hist_results_1_stats hist_timer_stats cdf_all; do
  is_png "$T/lat/$f.png" || fail "lat: $f.png missing or not a 1000 px PNG"
done
[[ $(wc -l <"$T/lat.out") -eq 4 ]] || fail "lat: expected 4 PNGs listed, got: $(cat "$T/lat.out")"
[[ ! -e "$T/lat/rtt.png" ]] || fail "lat: rtt.png made for a non-lop run"

"$PLOT" -o "$T/lop" --stat min tools/fit/testdata/lop_rxe8.json >"$T/lop.out" 2>"$T/lop.err" ||
  fail "lop run exited $?: $(cat "$T/lop.err")"
for f in rtt overhead latency predict; do
  is_png "$T/lop/$f.png" || fail "lop: $f.png missing or not a 1000 px PNG"
done
grep -q '"stat": "min"' "$T/lop/data/fit.json" || fail "lop: --stat min not passed to lopfit"
# The rtt plot draws every fitted rtt curve's fit, and the LogP member
# dashed where it is not the chosen fit.
fitted=$(awk -F'\t' '$1 == "rtt" && $4 != "-"' "$T/lop/data/curves.tsv" | wc -l)
logp=$(awk -F'\t' '$1 == "rtt" && $4 != "-" && $5 !~ /\(logp,/' "$T/lop/data/curves.tsv" | wc -l)
[[ $fitted -gt 0 ]] || fail "lop: no fitted rtt curve in curves.tsv"
[[ $(grep -c 'with lines lw 2' "$T/lop/data/rtt.gp") -eq "$fitted" ]] || fail "lop: rtt.gp lacks $fitted fit lines"
[[ $(grep -c 'dt 2' "$T/lop/data/rtt.gp") -eq "$logp" ]] || fail "lop: rtt.gp lacks $logp LogP lines"

# --compare: one overlay per point the two runs share (a run against itself
# here: both lat points), the PDFs and CDFs on the shared bins.
"$PLOT" -o "$T/cmp" --compare tools/plot/testdata/lat_rxe.json tools/plot/testdata/lat_rxe.json \
  >"$T/cmp.out" 2>"$T/cmp.err" || fail "compare exited $?: $(cat "$T/cmp.err")"
for f in overlay_lat_send_inline_size_8 overlay_lat_write_inline_size_8; do
  is_png "$T/cmp/$f.png" || fail "compare: $f.png missing or not a 1000 px PNG"
done
[[ $(wc -l <"$T/cmp.out") -eq 2 ]] || fail "compare: expected 2 PNGs listed, got: $(cat "$T/cmp.out")"
grep -q 'using 1:5 with steps' "$T/cmp/data/overlay_lat_send_inline_size_8.gp" ||
  fail "compare: the NEW run's PDF is not drawn"
"$PLOT" -o "$T/cmp1" --compare tools/plot/testdata/lat_rxe.json >/dev/null 2>"$T/err.txt" &&
  fail "--compare with one file succeeded"
grep -q "^plot.sh: error: --compare takes BASE.json and NEW.json" "$T/err.txt" || fail "compare one file: $(cat "$T/err.txt")"

# Errors: one line on stderr, non-zero exit.
for args in "$T/missing.json" "" "--bogus x.json"; do
  # shellcheck disable=SC2086
  "$PLOT" -o "$T/err" $args >/dev/null 2>"$T/err.txt"
  code=$?
  if [[ $code -eq 0 || $(wc -l <"$T/err.txt") -ne 1 ]] ||
      ! grep -q '^plot.sh: error: ' "$T/err.txt"; then
    fail "args '$args': exit $code, stderr: $(cat "$T/err.txt")"
  fi
done
printf '{"tool":"verbsbench","mode":"lat","stats":{}}' >"$T/empty.json"
"$PLOT" -o "$T/empty" "$T/empty.json" >/dev/null 2>"$T/err.txt" &&
  fail "a run without histograms or curves succeeded"
grep -q "has neither histograms nor lop curves" "$T/err.txt" || fail "empty: $(cat "$T/err.txt")"

[[ $fails -eq 0 ]] || { echo "$fails failure(s)"; exit 1; }
echo "all ok"
