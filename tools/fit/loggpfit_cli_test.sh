#!/bin/bash
# CLI contract of loggpfit: bad input gives exactly one line on stderr
# starting with "loggpfit: error:" and exit 1 (input) or 2 (usage); a good
# run exits 0, and loggpfit recovers the parameters a synthetic run was
# made from: the breakpoint, and g and G within 5% of the truth; the
# split's F-test p-value is reported, and --split-alpha below it refuses
# the split.
# Then the two test-bed runs (tools/internal/loggp_rxe.sh): on rxe every
# train is paced by the sender (g and G not identified, said in one line);
# under verbsemu's pacer at 100 Mbit/s one segment, G = 80 ns/B.
#   loggpfit_cli_test.sh LOGGPFIT LOGGP_SYNTH RXE_RUN PACED_RUN
set -u
LOGGPFIT="$1"
SYNTH="$2"
RXE_RUN="$3"
PACED_RUN="$4"
T="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0

TOOL="$LOGGPFIT" TOOL_NAME=loggpfit
# shellcheck source=tools/fit/cli_test_lib.sh
source "$(dirname "$0")/cli_test_lib.sh" || { echo "FAIL: cli_test_lib.sh not found"; exit 1; }

# Two protocols: g = 1500 ns, G = 0.5 ns/B up to 4 KiB; g = 3000 ns,
# G = 0.25 ns/B from 8 KiB; 1% noise on every measured value.
"$SYNTH" os=900 or=300 L=2000 n=16 noise=0.01 seed=7 sizes=1:65536 \
  seg=1:1500:0.5 seg=8192:3000:0.25 >"$T/run.json" ||
  { echo "FAIL synth"; exit 1; }
printf '{"tool":"verbsbench","mode":"lop","lop":{"curves":[]}}' >"$T/lop.json"
printf '{"tool":"verbsbench","mode":"loggp","loggp":{"n":16,' >"$T/cut.json"

expect_error no_input 2 "no input file" --
expect_error bad_stat 2 "--stat must be min or median, not 'mean'" -- --stat mean "$T/run.json"
expect_error bad_option 2 "unrecognised option|unrecognized option" -- --bogus "$T/run.json"
expect_error bad_segments 2 "--max-segments must be between 1 and 100" -- --max-segments 0 "$T/run.json"
expect_error split_alpha_0 2 "--split-alpha must be above 0 and below 1" -- --split-alpha 0 "$T/run.json"
expect_error split_alpha_1 2 "--split-alpha must be above 0 and below 1" -- --split-alpha 1 "$T/run.json"
expect_error split_alpha_nan 2 "--split-alpha must be above 0 and below 1" -- --split-alpha nan "$T/run.json"
expect_error split_alpha_text 2 ".*'--split-alpha' is invalid" -- --split-alpha x "$T/run.json"
expect_error missing_file 1 "cannot open '$T/nope.json'" -- "$T/nope.json"
expect_error foreign 1 ".*mode 'lop' output; loggpfit needs" -- "$T/lop.json"
expect_error malformed 1 "'$T/cut.json' is not valid JSON" -- "$T/cut.json"
expect_error bad_json_out 1 "cannot write" -- --json /proc/nope/x.json "$T/run.json"
expect_error full_disk 1 "cannot write '/dev/full'" -- --json /dev/full "$T/run.json"

if "$LOGGPFIT" --json "$T/fit.json" "$T/run.json" >"$T/out" 2>"$T/err" &&
    [[ ! -s "$T/err" ]]; then
  echo "ok   good_run"
else
  echo "FAIL good_run: $(cat "$T/err")"; fails=$((fails + 1))
fi
# The segment blocks, in order: segment 1's g and G, then segment 2's.
sed -n '/^segment 1:/,/^segment 2:/p' "$T/out" >"$T/seg1"
sed -n '/^segment 2:/,$p' "$T/out" >"$T/seg2"
# check NAME FILE LINE_REGEX VALUE: the estimate on FILE's first line
# matching LINE_REGEX ("  g = EST ns  SE ..") is within 5% of VALUE. One
# run at one seed; the 95% intervals' coverage is loggp_fit_test's (over
# 400 seeds).
check() {
  if grep -E -m 1 "$3" "$2" |
      awk -v v="$4" '{ e = $3 - v; if (e < 0) e = -e } e <= 0.05 * v { ok = 1 }
        END { exit !ok }'; then
    echo "ok   $1"
  else
    echo "FAIL $1: $(grep -E -m 1 "$3" "$2")"; fails=$((fails + 1))
  fi
}
if grep -q '^segment 1: sizes 1\.\.4096 ' "$T/out" &&
    grep -q '^segment 2: sizes 8192\.\.65536 ' "$T/out" &&
    ! grep -q '^segment 3:' "$T/out"; then
  echo "ok   breakpoint"
else
  echo "FAIL breakpoint:"; grep '^segment' "$T/out"; fails=$((fails + 1))
fi
check g1 "$T/seg1" '^  g = ' 1500
check G1 "$T/seg1" '^  G = ' 0.5
check g2 "$T/seg2" '^  g = ' 3000
check G2 "$T/seg2" '^  G = ' 0.25
# The candidates with the accepted split's p-value (the run's is ~1e-14).
if grep -Eq '^segmentations .*p < 0\.05/12 = .*K=2 AICc \S+ p [0-9.]+e-' "$T/out" &&
    grep -q '"split_p_value": [0-9.]*e-' "$T/fit.json"; then
  echo "ok   split_p"
else
  echo "FAIL split_p:"; grep '^segmentations' "$T/out"; fails=$((fails + 1))
fi
if "$LOGGPFIT" --split-alpha 1e-20 "$T/run.json" >"$T/strict" 2>"$T/err" &&
    grep -q '^segment 1: sizes 1\.\.65536 ' "$T/strict"; then
  echo "ok   split_alpha_refuses"
else
  echo "FAIL split_alpha_refuses:"; grep '^segment' "$T/strict"; cat "$T/err"
  fails=$((fails + 1))
fi
if grep -q '"tool": "loggpfit"' "$T/fit.json" &&
    grep -q '"identified": true' "$T/fit.json"; then
  echo "ok   json"
else
  echo "FAIL json"; fails=$((fails + 1))
fi

# The test-bed runs.
if "$LOGGPFIT" "$RXE_RUN" >"$T/rxe" 2>"$T/err" &&
    grep -q '^g and G not identified: 0 of 15 sizes' "$T/rxe"; then
  echo "ok   rxe_sender_bound"
else
  echo "FAIL rxe_sender_bound: $(tail -1 "$T/rxe") $(cat "$T/err")"; fails=$((fails + 1))
fi
if "$LOGGPFIT" "$PACED_RUN" >"$T/paced" 2>"$T/err"; then
  if grep -q '^segment 1:' "$T/paced" && ! grep -q '^segment 2:' "$T/paced"; then
    echo "ok   paced_one_segment"
  else
    echo "FAIL paced_one_segment:"; grep '^segment' "$T/paced"; fails=$((fails + 1))
  fi
  check paced_G "$T/paced" '^  G = ' 80
else
  echo "FAIL paced: $(cat "$T/err")"; fails=$((fails + 1))
fi

[[ $fails -eq 0 ]] || { echo "$fails failure(s)"; exit 1; }
echo "all ok"
