#!/usr/bin/env bats
# CLI contract of lopfit: bad input gives exactly one line on stderr
# starting with "lopfit: error:", nothing on stdout and exit 1 (input) or 2
# (usage); --max-fit-error is a regression gate (exit 3); good input exits
# 0 with its report, JSON and gnuplot data.

bats_require_minimum_version 1.5.0
load ../../bazel/expect_error

setup() {
  lopfit=$BATS_TEST_DIRNAME/lopfit
  data=$BATS_TEST_DIRNAME/testdata/lop_rxe8.json
  t=$BATS_TEST_TMPDIR
}

# refused STATUS REGEX ARGS...: lopfit ARGS exits STATUS, prints nothing on
# stdout and one stderr line "lopfit: error: " followed by a match of REGEX.
refused() {
  local status=$1 regex=$2
  shift 2
  expect_error --status "$status" --no-stdout -E "^lopfit: error: $regex" "$lopfit" "$@"
}

@test "a missing input file is refused, exit 1" {
  refused 1 "cannot open '$t/nope.json'" "$t/nope.json"
}

@test "a truncated JSON file is refused as not valid JSON, exit 1" {
  printf '{"tool":"verbsbench","mode":"lop","lop":{"curves":[' >"$t/truncated.json"
  refused 1 "'$t/truncated.json' is not valid JSON: parse error" "$t/truncated.json"
}

@test "a run with no curves is refused, exit 1" {
  printf '{"tool":"verbsbench","mode":"lop","lop":{"curves":[]}}' >"$t/empty.json"
  refused 1 ".*\"lop\".\"curves\" is empty" "$t/empty.json"
}

@test "a run of another mode (lat) is refused, exit 1" {
  printf '{"tool":"verbsbench","mode":"lat","stats":{}}' >"$t/lat.json"
  refused 1 ".*mode 'lat'" "$t/lat.json"
}

@test "a point without the statistic asked for is refused, exit 1" {
  printf '{"lop":{"curves":[{"name":"x","kind":"rtt","points":[{"p":1,"min_ns":3}]}]}}' \
    >"$t/nomedian.json"
  refused 1 ".*curve 'x' p=1 has no \"median_ns\"" "$t/nomedian.json"
}

@test "no input file is a usage error, exit 2" {
  refused 2 "no input file"
}

@test "a bad --stat is a usage error, exit 2" {
  refused 2 "--stat must be min, median or mean" --stat p42 "$data"
}

@test "an unknown option is a usage error, exit 2" {
  refused 2 "unrecognised option|unrecognized option" --bogus "$data"
}

@test "a negative --predict-max is a usage error, exit 2" {
  refused 2 "--predict-max must be between" --predict-max -3 "$data"
}

@test "a --gnuplot-dir that cannot be created is refused, exit 1" {
  refused 1 "cannot create directory" --gnuplot-dir /proc/nope/x "$data"
}

@test "a bad --weights is a usage error, exit 2" {
  refused 2 "--weights must be relative or unit" --weights huber "$data"
}

@test "a bad --rtt-model is a usage error naming the models, exit 2" {
  refused 2 "--rtt-model must be one of logp, pipeline, lop, not 'cubic'" --rtt-model cubic "$data"
}

@test "a bad --overhead-model is a usage error, exit 2" {
  refused 2 "--overhead-model must be one of const, lop" --overhead-model lop2 "$data"
}

@test "a --max-fit-error of 0 is a usage error, exit 2" {
  refused 2 "--max-fit-error must be > 0" --max-fit-error 0 "$data"
}

@test "a run of whole rounds (before per-message RTTs) asks for a rerun, exit 1" {
  printf '{"lop":{"curves":[{"name":"rtt2_1n_send_inline","kind":"rtt","points":[{"p":1,"median_ns":3}]}]}}' \
    >"$t/old.json"
  refused 1 ".*holds whole rounds .*rerun verbsbench lop" "$t/old.json"
}

@test "a --json to a full disk is refused, exit 1" {
  refused 1 "cannot write '/dev/full'" --json /dev/full "$data"
}

# The regression gate: --max-fit-error exits 3 with one line per derived
# curve over the bound, 0 under it.
@test "--max-fit-error under the fit's error fails the gate, exit 3" {
  run --separate-stderr "$lopfit" -q --max-fit-error 0.000001 "$data"
  [ "$status" = 3 ] || { echo "exit $status: $stderr"; return 1; }
  printf '%s\n' "$stderr" |
    grep -Eq '^lopfit: t_1:n from rtt_1n_send_inline: fit error [0-9.e+-]+% > 0.0001%$' ||
    { echo "no gate line in: $stderr"; return 1; }
}

@test "--max-fit-error above the fit's error passes the gate silently" {
  run --separate-stderr "$lopfit" -q --max-fit-error 1000 "$data"
  [ "$status" = 0 ] || { echo "exit $status: $stderr"; return 1; }
  [ -z "$stderr" ] || { echo "stderr: $stderr"; return 1; }
}

# --predict-max extends the derived rows to n = 20 (fit only, "-" measured).
@test "--predict-max 20 adds extrapolated rows up to p=20" {
  run "$lopfit" --predict-max 20 "$data"
  [ "$status" = 0 ] || { echo "exit $status: $output"; return 1; }
  printf '%s\n' "$output" | grep -Eq '^ +20 +- +- ' || { echo "no extrapolated row for p=20: $output"; return 1; }
}

# Success path: exit 0, report on stdout, JSON written and valid enough.
@test "a good run exits 0 with its report, JSON and gnuplot data" {
  run --separate-stderr "$lopfit" --stat min --json "$t/fit.json" --gnuplot-dir "$t/gp" "$data"
  [ "$status" = 0 ] || { echo "exit $status: $stderr"; return 1; }
  [ -z "$stderr" ] || { echo "stderr: $stderr"; return 1; }
  [[ "$output" == *"statistic: min"* ]] || { echo "no 'statistic: min' in: $output"; return 1; }
  grep -q '"tool": "lopfit"' "$t/fit.json"
  [ -s "$t/gp/curves.tsv" ]
}
