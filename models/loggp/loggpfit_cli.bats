#!/usr/bin/env bats
# CLI contract of loggpfit: bad input gives exactly one line on stderr
# starting with "loggpfit: error:", nothing on stdout and exit 1 (input) or
# 2 (usage); a good run exits 0, and loggpfit recovers the parameters a
# synthetic run was made from: the breakpoint, and g and G within 5% of the
# truth; the split's F-test p-value is reported, and --split-alpha below it
# refuses the split.
# Then the two test-bed runs (tools/internal/loggp_rxe.sh): on rxe every
# train is paced by the sender (g and G not identified, said in one line);
# under verbsemu's pacer at 100 Mbit/s one segment, G = 80 ns/B.

load ../../bazel/expect_error

setup() {
  loggpfit=$BATS_TEST_DIRNAME/loggpfit
  t=$BATS_TEST_TMPDIR
  # Two protocols: g = 1500 ns, G = 0.5 ns/B up to 4 KiB; g = 3000 ns,
  # G = 0.25 ns/B from 8 KiB; 1% noise on every measured value.
  "$BATS_TEST_DIRNAME/internal/loggp_synth" os=900 or=300 L=2000 n=16 noise=0.01 seed=7 \
    sizes=1:65536 seg=1:1500:0.5 seg=8192:3000:0.25 >"$t/run.json"
}

# refused STATUS REGEX ARGS...: loggpfit ARGS exits STATUS, prints nothing
# on stdout and one stderr line "loggpfit: error: " followed by a match of
# REGEX.
refused() {
  local status=$1 regex=$2
  shift 2
  expect_error --status "$status" --no-stdout -E "^loggpfit: error: $regex" "$loggpfit" "$@"
}

# fits REPORT ARGS...: loggpfit ARGS exits 0, its report in the file
# REPORT, its stderr in $t/err.
fits() {
  local report=$1
  shift
  "$loggpfit" "$@" >"$report" 2>"$t/err" || { echo "exit $?: $(cat "$t/err")"; return 1; }
}

# fit_synthetic: loggpfit on the synthetic run exits 0 with nothing on
# stderr; its report in $t/out, its JSON in $t/fit.json.
fit_synthetic() {
  fits "$t/out" --json "$t/fit.json" "$t/run.json"
  [ ! -s "$t/err" ] || { echo "stderr: $(cat "$t/err")"; return 1; }
}

# segment N FILE: segment N's block of the report FILE (from its
# "segment N:" line to the next segment's).
segment() {
  sed -n "/^segment $1:/,/^segment $(($1 + 1)):/p" "$2"
}

# within_5pct LINE_REGEX VALUE: the estimate on stdin's first line matching
# LINE_REGEX ("  g = EST ns  SE ..") is within 5% of VALUE. One run at one
# seed; the 95% intervals' coverage is loggp_fit_test's (over 400 seeds).
within_5pct() {
  local line
  line=$(grep -E -m 1 "$1")
  printf '%s\n' "$line" |
    awk -v v="$2" '{ e = $3 - v; if (e < 0) e = -e } e <= 0.05 * v { ok = 1 } END { exit !ok }' ||
    { echo "not within 5% of $2: '$line'"; return 1; }
}

@test "no input file is a usage error, exit 2" {
  refused 2 "no input file"
}

@test "--stat mean is a usage error (min or median), exit 2" {
  refused 2 "--stat must be min or median, not 'mean'" --stat mean "$t/run.json"
}

@test "an unknown option is a usage error, exit 2" {
  refused 2 "unrecognised option|unrecognized option" --bogus "$t/run.json"
}

@test "--max-segments 0 is a usage error, exit 2" {
  refused 2 "--max-segments must be between 1 and 100" --max-segments 0 "$t/run.json"
}

@test "--split-alpha 0 is a usage error, exit 2" {
  refused 2 "--split-alpha must be above 0 and below 1" --split-alpha 0 "$t/run.json"
}

@test "--split-alpha 1 is a usage error, exit 2" {
  refused 2 "--split-alpha must be above 0 and below 1" --split-alpha 1 "$t/run.json"
}

@test "--split-alpha nan is a usage error, exit 2" {
  refused 2 "--split-alpha must be above 0 and below 1" --split-alpha nan "$t/run.json"
}

@test "a --split-alpha that is no number is a usage error, exit 2" {
  refused 2 ".*'--split-alpha' is invalid" --split-alpha x "$t/run.json"
}

@test "a missing input file is refused, exit 1" {
  refused 1 "cannot open '$t/nope.json'" "$t/nope.json"
}

@test "a run of another mode (lop) is refused, exit 1" {
  printf '{"tool":"verbsbench","mode":"lop","lop":{"curves":[]}}' >"$t/lop.json"
  refused 1 ".*mode 'lop' output; loggpfit needs" "$t/lop.json"
}

@test "a truncated JSON file is refused as not valid JSON, exit 1" {
  printf '{"tool":"verbsbench","mode":"loggp","loggp":{"n":16,' >"$t/cut.json"
  refused 1 "'$t/cut.json' is not valid JSON" "$t/cut.json"
}

@test "a --json that cannot be created is refused, exit 1" {
  refused 1 "cannot write" --json /proc/nope/x.json "$t/run.json"
}

@test "a --json to a full disk is refused, exit 1" {
  refused 1 "cannot write '/dev/full'" --json /dev/full "$t/run.json"
}

@test "the synthetic run fits: exit 0, nothing on stderr" {
  fit_synthetic
}

@test "the breakpoint is found: sizes 1..4096 and 8192..65536, no third segment" {
  fit_synthetic
  grep -q '^segment 1: sizes 1\.\.4096 ' "$t/out" || { grep '^segment' "$t/out"; return 1; }
  grep -q '^segment 2: sizes 8192\.\.65536 ' "$t/out" || { grep '^segment' "$t/out"; return 1; }
  ! grep -q '^segment 3:' "$t/out" || { grep '^segment' "$t/out"; return 1; }
}

@test "segment 1's g is within 5% of 1500 ns" {
  fit_synthetic
  segment 1 "$t/out" | within_5pct '^  g = ' 1500
}

@test "segment 1's G is within 5% of 0.5 ns/B" {
  fit_synthetic
  segment 1 "$t/out" | within_5pct '^  G = ' 0.5
}

@test "segment 2's g is within 5% of 3000 ns" {
  fit_synthetic
  segment 2 "$t/out" | within_5pct '^  g = ' 3000
}

@test "segment 2's G is within 5% of 0.25 ns/B" {
  fit_synthetic
  segment 2 "$t/out" | within_5pct '^  G = ' 0.25
}

# The candidates with the accepted split's p-value (the run's is ~1e-14).
@test "the accepted split's F-test p-value is reported, in the report and the JSON" {
  fit_synthetic
  grep -Eq '^segmentations .*p < 0\.05/12 = .*K=2 AICc \S+ p [0-9.]+e-' "$t/out" ||
    { grep '^segmentations' "$t/out"; return 1; }
  grep -q '"split_p_value": [0-9.]*e-' "$t/fit.json"
}

@test "--split-alpha below the split's p-value refuses the split" {
  fits "$t/strict" --split-alpha 1e-20 "$t/run.json"
  grep -q '^segment 1: sizes 1\.\.65536 ' "$t/strict" || { grep '^segment' "$t/strict"; return 1; }
}

@test "the JSON names the tool and says g and G are identified" {
  fit_synthetic
  grep -q '"tool": "loggpfit"' "$t/fit.json"
  grep -q '"identified": true' "$t/fit.json"
}

@test "rxe's run is sender-bound: g and G not identified, in one line" {
  fits "$t/rxe" "$BATS_TEST_DIRNAME/testdata/loggp_rxe.json"
  grep -q '^g and G not identified: 0 of 15 sizes' "$t/rxe" || { tail -1 "$t/rxe"; return 1; }
}

@test "the run paced at 100 Mbit/s is one segment" {
  fits "$t/paced" "$BATS_TEST_DIRNAME/testdata/loggp_rxe_pace100M.json"
  grep -q '^segment 1:' "$t/paced" || { echo "no segment 1: $(cat "$t/paced")"; return 1; }
  ! grep -q '^segment 2:' "$t/paced" || { grep '^segment' "$t/paced"; return 1; }
}

@test "the run paced at 100 Mbit/s has G within 5% of 80 ns/B" {
  fits "$t/paced" "$BATS_TEST_DIRNAME/testdata/loggp_rxe_pace100M.json"
  within_5pct '^  G = ' 80 <"$t/paced"
}
