#!/usr/bin/env bats
# `verbsbench compare` as CI runs it, on runs measured in the test bed
# (verbsbench/compare/testdata/, see its README.md): exit 0 when the
# thresholds hold or none is given, 1 with one stderr line per crossing, 2
# with one stderr line for bad usage, unreadable or mismatched files, or a
# failed plot.

load ../bazel/expect_error

setup() {
  verbsbench=$BATS_TEST_DIRNAME/../verbsbench/verbsbench
  json_get=$BATS_TEST_DIRNAME/../verbsbench/json_get
  plot=$(readlink -f "$BATS_TEST_DIRNAME/../tools/plot/plot")
  local data=$BATS_TEST_DIRNAME/../verbsbench/compare/testdata
  # 10,000 rounds each (stored bins only), and 1,000 with every sample (raw).
  native1=$data/lat_native1.json native2=$data/lat_native2.json
  shim10=$data/lat_shim10.json
  native_raw=$data/lat_native_raw.json shim10_raw=$data/lat_shim10_raw.json
  t=$BATS_TEST_TMPDIR
}

# compare STATUS ERR_LINES ARGS...: verbsbench compare ARGS exits STATUS
# with ERR_LINES lines on stderr; its stdout in $t/out, stderr in $t/err.
compare() {
  local want=$1 lines_want=$2 rc=0 lines
  shift 2
  "$verbsbench" compare "$@" >"$t/out" 2>"$t/err" || rc=$?
  lines=$(grep -c . "$t/err" || true)
  if [ "$rc" != "$want" ] || [ "$lines" != "$lines_want" ]; then
    echo "exit $rc (want $want), $lines stderr lines (want $lines_want): $(cat "$t/err")"
    return 1
  fi
}

# refused REGEX ARGS...: verbsbench compare ARGS exits 2 with one stderr
# line matching REGEX.
refused() {
  local regex=$1
  shift
  expect_error --status 2 --stderr -E "$regex" "$verbsbench" compare "$@"
}

# says FILE REGEX: a line of FILE matches the extended regex REGEX.
says() {
  grep -Eq -- "$2" "$1" || { echo "no '$2' in $1: $(cat "$1")"; return 1; }
}

# ---- exit 0 ----------------------------------------------------------------
@test "a run against itself, no threshold: report only, ratios 1, KS 0, exit 0" {
  compare 0 0 "$native1" "$native1"
  says "$t/out" "^report only: 1 point compared, no threshold given$"
  says "$t/out" "^ ratio *1.000 *1.000"
  says "$t/out" "KS 0.000 \(p 1,"
}

@test "two native runs within a median ratio of 1.5 pass, distances from stored bins" {
  compare 0 0 "$native1" "$native2" --max-median-ratio 1.5
  says "$t/out" "^PASS: 1 point within 1 threshold$"
  # The runs kept no samples: the bins are used.
  says "$t/out" "distances from stored bins"
}

@test "two runs that kept their samples are compared on the raw samples" {
  compare 0 0 "$native_raw" "$shim10_raw" --max-ratio p50=3
  says "$t/out" "distances from raw samples"
}

@test "--distance-from bins uses the bins of runs with raw samples" {
  compare 0 0 "$native_raw" "$shim10_raw" --distance-from bins --max-ratio median=3
  says "$t/out" "distances from stored bins"
}

# ---- exit 1 ----------------------------------------------------------------
@test "+10 us against a median ratio of 1.1: one crossing line, FAIL, exit 1" {
  compare 1 1 "$native1" "$shim10" --max-median-ratio 1.1
  says "$t/err" "^verbsbench compare: lat send size 8: p50 ratio [0-9.]+ > 1.1$"
  says "$t/out" "^FAIL: 1 threshold crossing in 1 of 1 point$"
}

@test "every threshold crossed: one stderr line each (ratios, KS, Wasserstein), exit 1" {
  compare 1 4 "$native1" "$shim10" \
    --max-ratio p25=1.2 --max-ratio min=1.2 --max-ks 0.2 --max-wasserstein-ns 2000
  says "$t/err" "KS [0-9.]+ > 0.2$"
  says "$t/err" "Wasserstein [0-9]+ ns > 2000 ns$"
}

@test "--json to a file with -q: nothing on stdout, the verdict and points in the JSON, exit 1" {
  compare 1 1 "$native_raw" "$shim10_raw" --max-median-ratio 1.1 --json "$t/cmp.json" -q
  [ ! -s "$t/out" ] || { echo "-q printed: $(head -n 2 "$t/out")"; return 1; }
  [ "$("$json_get" "$t/cmp.json" /pass)" = false ] || { echo "JSON: pass is not false"; return 1; }
  [ "$("$json_get" "$t/cmp.json" /crossings --size)" = 1 ] || { echo "JSON: not one crossing"; return 1; }
  [ "$("$json_get" "$t/cmp.json" /points/0/distance/from)" = raw ] || { echo "JSON: distance not from raw"; return 1; }
  [ "$("$json_get" "$t/cmp.json" /points/0/quantiles/4/name)" = p50 ] || { echo "JSON: quantile 4 is not p50"; return 1; }
}

# ---- exit 2 ----------------------------------------------------------------
@test "a missing file is one line, exit 2" {
  refused "^verbsbench compare: $t/none.json: cannot read \(No such file or directory\)$" \
    "$native1" "$t/none.json"
}

@test "a file that is not JSON is one line, exit 2" {
  printf '{"mode": "lat", "results": [' >"$t/broken.json"
  refused "^verbsbench compare: $t/broken.json: not JSON \(" "$t/broken.json" "$native1"
}

@test "a document without a mode is not a verbsbench result, exit 2" {
  printf '{"tool": "verbsbench"}' >"$t/nomode.json"
  refused "^verbsbench compare: $t/nomode.json: not a verbsbench result \(no 'mode'\)$" \
    "$t/nomode.json" "$native1"
}

@test "runs of different modes are one line, exit 2" {
  sed 's/"mode": "lat"/"mode": "bw"/' "$native2" >"$t/relabelled_bw.json"
  refused "^verbsbench compare: $t/relabelled_bw.json: mode bw but $native1 is lat$" \
    "$native1" "$t/relabelled_bw.json"
}

@test "runs with no point in common are one line naming both, exit 2" {
  sed 's/"size": 8,/"size": 16,/' "$native2" >"$t/size16.json"
  refused "^verbsbench compare: no point in common: $native1 has lat send size 8; $t/size16.json has lat send size 16$" \
    "$native1" "$t/size16.json"
}

@test "--distance-from raw of a run without samples is one line, exit 2" {
  refused "native1.json: lat send size 8: keeps 0 of its 10000 samples" \
    "$native1" "$native2" --distance-from raw
}

@test "one file is a usage error, exit 2" {
  refused "needs BASE.json and NEW.json \(1 files given\)" "$native1"
}

@test "a --max-ratio without Q=R is a usage error, exit 2" {
  refused "--max-ratio 'p42=2': expected Q=R" "$native1" "$native2" --max-ratio p42=2
}

@test "a --max-median-ratio that is no number is a usage error, exit 2" {
  refused "--max-median-ratio 'fast' is not a number above 0" "$native1" "$native2" --max-median-ratio fast
}

@test "a --max-ks above 1 is a usage error, exit 2" {
  refused "--max-ks is at most 1" "$native1" "$native2" --max-ks 2
}

@test "a second limit for p50 is a usage error, exit 2" {
  refused "a second limit for p50" "$native1" "$native2" --max-median-ratio 2 --max-ratio p50=3
}

@test "an unknown option is a usage error, exit 2" {
  refused "unrecognised option '--bogus'|unrecognized option '--bogus'" "$native1" "$native2" --bogus
}

@test "a bad --distance-from is a usage error, exit 2" {
  refused "bad --distance-from 'best'" "$native1" "$native2" --distance-from best
}

# ---- --plot-dir ------------------------------------------------------------
@test "--plot-dir draws the overlay PNG through tools/plot and lists it, exit 0" {
  command -v gnuplot >/dev/null || skip "gnuplot is not installed here"
  VERBSBENCH_PLOT=$plot compare 0 0 "$native_raw" "$shim10_raw" --plot-dir "$t/plots"
  local png=$t/plots/overlay_lat_send_size_8.png
  [ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "no overlay PNG at $png"; return 1; }
  grep -q "^$png$" "$t/out" || { echo "the PNG is not listed: $(cat "$t/out")"; return 1; }
}

@test "a plot that cannot run is one line, exit 2" {
  VERBSBENCH_PLOT=/nonexistent/plot \
    refused "^verbsbench compare: --plot-dir: cannot run /nonexistent/plot" \
    "$native1" "$shim10" --plot-dir "$t/plots2"
}

@test "--help prints the usage" {
  "$verbsbench" compare --help | grep -q "usage: verbsbench compare"
}
