#!/bin/bash
# CLI contract of lopfit: bad input gives exactly one line on stderr starting
# with "lopfit: error:" and a non-zero exit; good input exits 0.
set -u
LOPFIT="$1"
DATA="tools/fit/testdata/lop_rxe8.json"
T="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0

TOOL="$LOPFIT" TOOL_NAME=lopfit
# shellcheck source=tools/fit/cli_test_lib.sh
source "$(dirname "$0")/cli_test_lib.sh" || { echo "FAIL: cli_test_lib.sh not found"; exit 1; }

printf '{"tool":"verbsbench","mode":"lop","lop":{"curves":[' >"$T/truncated.json"
printf '{"tool":"verbsbench","mode":"lop","lop":{"curves":[]}}' >"$T/empty.json"
printf '{"tool":"verbsbench","mode":"lat","stats":{}}' >"$T/lat.json"
printf '{"lop":{"curves":[{"name":"x","kind":"rtt","points":[{"p":1,"min_ns":3}]}]}}' \
  >"$T/nomedian.json"

expect_error missing_file 1 "cannot open '$T/nope.json'" -- "$T/nope.json"
expect_error malformed 1 "'$T/truncated.json' is not valid JSON: parse error" -- "$T/truncated.json"
expect_error no_curves 1 ".*\"lop\".\"curves\" is empty" -- "$T/empty.json"
expect_error wrong_mode 1 ".*mode 'lat'" -- "$T/lat.json"
expect_error no_stat 1 ".*curve 'x' p=1 has no \"median_ns\"" -- "$T/nomedian.json"
expect_error no_input 2 "no input file" --
expect_error bad_stat 2 "--stat must be min, median or mean" -- --stat p42 "$DATA"
expect_error bad_option 2 "unrecognised option|unrecognized option" -- --bogus "$DATA"
expect_error bad_predict 2 "--predict-max must be between" -- --predict-max -3 "$DATA"
expect_error bad_outdir 1 "cannot create directory" -- --gnuplot-dir /proc/nope/x "$DATA"
expect_error bad_weights 2 "--weights must be relative or unit" -- --weights huber "$DATA"
expect_error bad_rtt_model 2 "--rtt-model must be one of logp, pipeline, lop, not 'cubic'" -- --rtt-model cubic "$DATA"
expect_error bad_ov_model 2 "--overhead-model must be one of const, lop" -- --overhead-model lop2 "$DATA"
expect_error bad_max_error 2 "--max-fit-error must be > 0" -- --max-fit-error 0 "$DATA"
printf '{"lop":{"curves":[{"name":"rtt2_1n_send_inline","kind":"rtt","points":[{"p":1,"median_ns":3}]}]}}' \
  >"$T/old.json"
expect_error old_rtt 1 ".*holds whole rounds .*rerun verbsbench lop" -- "$T/old.json"
expect_error full_disk 1 "cannot write '/dev/full'" -- --json /dev/full "$DATA"

# The regression gate: --max-fit-error exits 3 with one line per derived
# curve over the bound, 0 under it.
"$LOPFIT" -q --max-fit-error 0.000001 "$DATA" 2>"$T/gate.err"
code=$?
if [[ $code -eq 3 ]] && grep -Eq '^lopfit: t_1:n from rtt_1n_send_inline: fit error [0-9.e+-]+% > 0.0001%$' "$T/gate.err"; then
  echo "ok   gate_fails"
else
  echo "FAIL gate_fails: exit $code: $(cat "$T/gate.err")"; fails=$((fails + 1))
fi
if "$LOPFIT" -q --max-fit-error 1000 "$DATA" 2>"$T/gate.err" && [[ ! -s "$T/gate.err" ]]; then
  echo "ok   gate_passes"
else
  echo "FAIL gate_passes: $(cat "$T/gate.err")"; fails=$((fails + 1))
fi

# --predict-max extends the derived rows to n = 20 (fit only, "-" measured).
"$LOPFIT" --predict-max 20 "$DATA" >"$T/pred" 2>&1 || { echo "FAIL predict: exit"; fails=$((fails + 1)); }
if grep -Eq '^ +20 +- +- ' "$T/pred"; then
  echo "ok   predict"
else
  echo "FAIL predict: no extrapolated row for p=20"; fails=$((fails + 1))
fi

# Success path: exit 0, report on stdout, JSON written and valid enough.
if "$LOPFIT" --stat min --json "$T/fit.json" --gnuplot-dir "$T/gp" "$DATA" \
    >"$T/out" 2>"$T/err"; then
  if [[ -s "$T/err" ]] || ! grep -q "statistic: min" "$T/out" ||
      ! grep -q '"tool": "lopfit"' "$T/fit.json" ||
      [[ ! -s "$T/gp/curves.tsv" ]]; then
    echo "FAIL success: unexpected output"; cat "$T/err"; fails=$((fails + 1))
  else
    echo "ok   success"
  fi
else
  echo "FAIL success: non-zero exit"; cat "$T/err"; fails=$((fails + 1))
fi

[[ $fails -eq 0 ]] || { echo "$fails failure(s)"; exit 1; }
echo "all ok"
