#!/usr/bin/env bats
# The plot program end to end: a lat run gives one PDF/CDF PNG per
# histogram plus the CDF overlay, a lop run gives the RTT/overhead/latency/
# prediction PNGs, --compare one overlay per shared point, and bad input
# fails with one line. The cases that draw skip where gnuplot is missing.

load ../../bazel/expect_error

setup() {
  plot=$BATS_TEST_DIRNAME/plot
  lat=$BATS_TEST_DIRNAME/testdata/lat_rxe.json
  lop=$BATS_TEST_DIRNAME/../../models/lop/testdata/lop_rxe8.json
  t=$BATS_TEST_TMPDIR
}

# is_png FILE: FILE is a PNG 1000 px wide.
is_png() {
  [[ -s "$1" ]] || { echo "$1: missing or empty"; return 1; }
  [[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] ||
    { echo "$1: not a PNG"; return 1; }
  # IHDR width (bytes 16..19, big endian).
  local w
  w=$(od -An -tu1 -j16 -N4 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
  [[ "$w" -eq 1000 ]] || { echo "$1: $w px wide, not 1000"; return 1; }
}

# plots NAME ARGS...: plot -o $t/NAME ARGS exits 0; the PNGs it lists
# in $t/NAME.out. Skipped, with the reason, where gnuplot is not installed.
plots() {
  command -v gnuplot >/dev/null || skip "gnuplot is not installed here"
  local name=$1
  shift
  "$plot" -o "$t/$name" "$@" >"$t/$name.out" 2>"$t/$name.err" ||
    { echo "exit $?: $(cat "$t/$name.err")"; return 1; }
}

@test "a lat run: a 1000 px PNG per histogram and the CDF overlay, 4 listed, no rtt plot" {
  plots lat "$lat"
  local f
  for f in hist_results_0_stats hist_results_1_stats hist_timer_stats cdf_all; do
    is_png "$t/lat/$f.png"
  done
  [[ $(wc -l <"$t/lat.out") -eq 4 ]] || { echo "expected 4 PNGs listed, got: $(cat "$t/lat.out")"; return 1; }
  [[ ! -e "$t/lat/rtt.png" ]] || { echo "rtt.png made for a non-lop run"; return 1; }
}

# The rtt plot draws every fitted rtt curve's fit, and the LogP member
# dashed where it is not the chosen fit.
@test "a lop run: rtt, overhead, latency and predict PNGs, lopfit at --stat min, a fit line per curve" {
  plots lop --stat min "$lop"
  local f fitted logp
  for f in rtt overhead latency predict; do
    is_png "$t/lop/$f.png"
  done
  grep -q '"stat": "min"' "$t/lop/data/fit.json" || { echo "--stat min not passed to lopfit"; return 1; }
  fitted=$(awk -F'\t' '$1 == "rtt" && $4 != "-"' "$t/lop/data/curves.tsv" | wc -l)
  logp=$(awk -F'\t' '$1 == "rtt" && $4 != "-" && $5 !~ /\(logp,/' "$t/lop/data/curves.tsv" | wc -l)
  [[ $fitted -gt 0 ]] || { echo "no fitted rtt curve in curves.tsv"; return 1; }
  [[ $(grep -c 'with lines lw 2' "$t/lop/data/rtt.gp") -eq "$fitted" ]] ||
    { echo "rtt.gp lacks $fitted fit lines"; return 1; }
  [[ $(grep -c 'dt 2' "$t/lop/data/rtt.gp") -eq "$logp" ]] ||
    { echo "rtt.gp lacks $logp LogP lines"; return 1; }
}

# A run against itself here: both lat points shared, the PDFs and CDFs on
# the shared bins.
@test "--compare: one overlay per shared point, 2 listed, the NEW run's PDF drawn" {
  plots cmp --compare "$lat" "$lat"
  local f
  for f in overlay_lat_send_inline_size_8 overlay_lat_write_inline_size_8; do
    is_png "$t/cmp/$f.png"
  done
  [[ $(wc -l <"$t/cmp.out") -eq 2 ]] || { echo "expected 2 PNGs listed, got: $(cat "$t/cmp.out")"; return 1; }
  grep -q 'using 1:5 with steps' "$t/cmp/data/overlay_lat_send_inline_size_8.gp" ||
    { echo "the NEW run's PDF is not drawn"; return 1; }
}

@test "--compare with one file fails: it takes BASE.json and NEW.json" {
  if "$plot" -o "$t/cmp1" --compare "$lat" >/dev/null 2>"$t/err.txt"; then
    echo "--compare with one file succeeded"
    return 1
  fi
  grep -q "^plot: error: --compare takes BASE.json and NEW.json" "$t/err.txt" ||
    { cat "$t/err.txt"; return 1; }
}

@test "a missing input file is one error line" {
  expect_error --stderr -E '^plot: error: ' "$plot" -o "$t/err" "$t/missing.json"
}

@test "no input file is one error line" {
  expect_error --stderr -E '^plot: error: ' "$plot" -o "$t/err"
}

@test "an unknown option is one error line" {
  expect_error --stderr -E '^plot: error: ' "$plot" -o "$t/err" --bogus x.json
}

@test "a run with neither histograms nor lop curves fails" {
  printf '{"tool":"verbsbench","mode":"lat","stats":{}}' >"$t/empty.json"
  if "$plot" -o "$t/empty" "$t/empty.json" >/dev/null 2>"$t/err.txt"; then
    echo "a run without histograms or curves succeeded"
    return 1
  fi
  grep -q "has neither histograms nor lop curves" "$t/err.txt" || { cat "$t/err.txt"; return 1; }
}
