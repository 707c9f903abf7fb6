#!/bin/bash
# `verbsbench compare` as CI runs it, on runs measured in the test bed
# (verbsbench/compare/testdata/, see its README.md): exit 0 when the
# thresholds hold or none is given, 1 with one stderr line per crossing, 2
# with one stderr line for bad usage, unreadable or mismatched files, or a
# failed plot.
#   compare_cli_test.sh VERBSBENCH JSON_GET PLOT_SH HISTDAT LOPFIT
set -u
bin=$1 json_get=$2
plot=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
HISTDAT=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
LOPFIT=$(cd "$(dirname "$5")" && pwd)/$(basename "$5")
export HISTDAT LOPFIT
data=verbsbench/compare/testdata
# 10,000 rounds each (stored bins only), and 1,000 with every sample (raw).
native1=$data/lat_native1.json native2=$data/lat_native2.json
shim10=$data/lat_shim10.json
native_raw=$data/lat_native_raw.json shim10_raw=$data/lat_shim10_raw.json
tmp=${TEST_TMPDIR:-$(mktemp -d)}
fails=0
fail() {
  echo "FAIL $*"
  fails=$((fails + 1))
}

# check NAME STATUS ERR_LINES ERR_REGEX ARGS...: exit status, number of
# stderr lines and what the first says.
check() {
  local name=$1 want=$2 lines_want=$3 re=$4
  shift 4
  "$bin" compare "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(grep -c . "$tmp/err")
  if [ "$rc" != "$want" ] || [ "$lines" != "$lines_want" ] ||
    { [ -n "$re" ] && ! grep -Eq -e "$re" "$tmp/err"; }; then
    fail "$name: exit $rc (want $want), $lines stderr lines (want $lines_want): $(cat "$tmp/err")"
  else
    echo "PASS $name: exit $rc $(head -n 1 "$tmp/err")"
  fi
}

# ---- exit 0 ----------------------------------------------------------------
check "a run against itself, no threshold" 0 0 "" "$native1" "$native1"
grep -q "^report only: 1 point compared, no threshold given$" "$tmp/out" || fail "no report-only verdict"
grep -q "^ ratio *1.000 *1.000" "$tmp/out" || fail "a run against itself: ratios not 1"
grep -q "KS 0.000 (p 1," "$tmp/out" || fail "a run against itself: KS not 0"
check "two native runs within 1.5" 0 0 "" "$native1" "$native2" --max-median-ratio 1.5
grep -q "^PASS: 1 point within 1 threshold$" "$tmp/out" || fail "no PASS verdict: $(tail -n 1 "$tmp/out")"
grep -q "distances from stored bins" "$tmp/out" || fail "the runs kept no samples: the bins should be used"
check "raw samples" 0 0 "" "$native_raw" "$shim10_raw" --max-ratio p50=3
grep -q "distances from raw samples" "$tmp/out" || fail "both runs kept their samples: raw should be used"
check "bins asked for" 0 0 "" "$native_raw" "$shim10_raw" --distance-from bins --max-ratio median=3
grep -q "distances from stored bins" "$tmp/out" || fail "--distance-from bins not used"

# ---- exit 1 ----------------------------------------------------------------
check "+10 us against 1.1" 1 1 "^verbsbench compare: lat send size 8: p50 ratio [0-9.]+ > 1.1$" \
  "$native1" "$shim10" --max-median-ratio 1.1
grep -q "^FAIL: 1 threshold crossing in 1 of 1 point$" "$tmp/out" || fail "no FAIL verdict: $(tail -n 1 "$tmp/out")"
check "every threshold crossed, one line each" 1 4 "KS [0-9.]+ > 0.2$" "$native1" "$shim10" \
  --max-ratio p25=1.2 --max-ratio min=1.2 --max-ks 0.2 --max-wasserstein-ns 2000
grep -Eq "Wasserstein [0-9]+ ns > 2000 ns$" "$tmp/err" || fail "no Wasserstein line: $(cat "$tmp/err")"
check "JSON to a file" 1 1 "" "$native_raw" "$shim10_raw" --max-median-ratio 1.1 --json "$tmp/cmp.json" -q
[ ! -s "$tmp/out" ] || fail "-q printed: $(head -n 2 "$tmp/out")"
[ "$("$json_get" "$tmp/cmp.json" /pass)" = false ] || fail "JSON: pass is not false"
[ "$("$json_get" "$tmp/cmp.json" /crossings --size)" = 1 ] || fail "JSON: not one crossing"
[ "$("$json_get" "$tmp/cmp.json" /points/0/distance/from)" = raw ] || fail "JSON: distance not from raw"
[ "$("$json_get" "$tmp/cmp.json" /points/0/quantiles/4/name)" = p50 ] || fail "JSON: quantile 4 is not p50"

# ---- exit 2 ----------------------------------------------------------------
printf '{"tool": "verbsbench"}' >"$tmp/nomode.json"
printf '{"mode": "lat", "results": [' >"$tmp/broken.json"
sed 's/"mode": "lat"/"mode": "bw"/' "$native2" >"$tmp/relabelled_bw.json"
sed 's/"size": 8,/"size": 16,/' "$native2" >"$tmp/size16.json"
check "missing file" 2 1 "^verbsbench compare: $tmp/none.json: cannot read \(No such file or directory\)$" \
  "$native1" "$tmp/none.json"
check "not JSON" 2 1 "^verbsbench compare: $tmp/broken.json: not JSON \(" "$tmp/broken.json" "$native1"
check "no mode" 2 1 "^verbsbench compare: $tmp/nomode.json: not a verbsbench result \(no 'mode'\)$" \
  "$tmp/nomode.json" "$native1"
check "modes differ" 2 1 "^verbsbench compare: $tmp/relabelled_bw.json: mode bw but $native1 is lat$" \
  "$native1" "$tmp/relabelled_bw.json"
check "no point in common" 2 1 "^verbsbench compare: no point in common: $native1 has lat send size 8; $tmp/size16.json has lat send size 16$" \
  "$native1" "$tmp/size16.json"
check "raw asked of a run without" 2 1 "native1.json: lat send size 8: keeps 0 of its 10000 samples" \
  "$native1" "$native2" --distance-from raw
check "one file" 2 1 "needs BASE.json and NEW.json \(1 files given\)" "$native1"
check "bad quantile" 2 1 "--max-ratio 'p42=2': expected Q=R" "$native1" "$native2" --max-ratio p42=2
check "bad ratio" 2 1 "--max-median-ratio 'fast' is not a number above 0" "$native1" "$native2" --max-median-ratio fast
check "KS above 1" 2 1 "--max-ks is at most 1" "$native1" "$native2" --max-ks 2
check "twice p50" 2 1 "a second limit for p50" "$native1" "$native2" --max-median-ratio 2 --max-ratio p50=3
check "bad option" 2 1 "unrecognised option '--bogus'|unrecognized option '--bogus'" "$native1" "$native2" --bogus
check "bad source" 2 1 "bad --distance-from 'best'" "$native1" "$native2" --distance-from best

# ---- --plot-dir ------------------------------------------------------------
VERBSBENCH_PLOT=$plot check "overlay plot" 0 0 "" "$native_raw" "$shim10_raw" --plot-dir "$tmp/plots"
png=$tmp/plots/overlay_lat_send_size_8.png
if [ "$(head -c 8 "$png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
  fail "no overlay PNG at $png"
fi
grep -q "^$png$" "$tmp/out" || fail "the PNG is not listed: $(cat "$tmp/out")"
VERBSBENCH_PLOT=/nonexistent/plot.sh check "plot fails" 2 1 "^verbsbench compare: --plot-dir: cannot run /nonexistent/plot.sh" \
  "$native1" "$shim10" --plot-dir "$tmp/plots2"

if ! "$bin" compare --help | grep -q "usage: verbsbench compare"; then fail "--help"; fi
[ "$fails" = 0 ]
