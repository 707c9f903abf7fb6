# shellcheck shell=bash
# Helpers for running verbs programs natively and under libverbsemu.so inside
# soft-roce/vm. Source after tests/vm/lib.sh. Used by shim/vm_tests.bats,
# shim/vm_stacks_tests.bats and tools/accuracy_e2e.sh.

# shim_ready: the launcher under test and the library it preloads exist
# (built on the host, or installed; tests/vm/lib.sh finds them).
shim_ready() {
  [ -x "$VERBSEMU" ] && [ -f "$(vm_shim)" ]
}

# shim_prefix REPORT FLAGS...: sets the array PREFIX to the command words that
# run a program under the shim (for run_pair, which cannot run functions).
shim_prefix() {
  local report=$1
  shift
  # No "--": run_pair splits its arguments on it (the launcher takes the
  # first word that is not an option as the command).
  PREFIX=("$VERBSEMU" run --report "$report" "$@")
}

# shimmed REPORT FLAGS... -- CMD...: CMD under the shim, report appended to REPORT.
shimmed() {
  local report=$1
  shift
  local launcher_args=()
  while [ "$1" != "--" ]; do launcher_args+=("$1"); shift; done
  shift
  "$VERBSEMU" run --report "$report" "${launcher_args[@]}" -- "$@"
}

# report_saw REPORT: the shim saw work requests on some device.
report_saw() { grep -q "^device .*wrs [1-9]" "$1" 2>/dev/null; }

# report_field REPORT PREFIX: the number after PREFIX, summed over device lines.
report_field() {
  awk -v re="$2" '/^device / { if (match($0, re "[0-9.]+")) { s += substr($0, RSTART + length(re), RLENGTH - length(re)) + 0 } } END { print s + 0 }' "$1" 2>/dev/null
}

# report_spin_own REPORT: the mean wait the shim's spins made, without the
# time their threads lost the CPU (the reports' "waits" lines, weighted by
# their counts); empty when no report has one.
report_spin_own() {
  awk '/^waits [0-9]+: mean / { n = $2 + 0; own = ""
      for (i = 3; i <= NF; i++) if ($i == "without") own = $(i - 2)
      if (own != "") { s += n * own; c += n } }
    END { if (c > 0) printf "%.4f\n", s / c }' "$1" 2>/dev/null
}

# report_late_p50 REPORT: the largest "ended late by p50" of the report's
# waits lines (us); empty when it has none.
report_late_p50() {
  awk '/^waits [0-9]+: mean / { for (i = 1; i < NF; i++) if ($i == "p50") v = $(i + 1) + 0
      if (v > m) m = v; seen = 1 }
    END { if (seen) printf "%.3f\n", m }' "$1" 2>/dev/null
}

# perf_pair KIND TAG TEST SIZE ITERS FLAGS|-|+ EXTRA...: one perftest pair,
# native when FLAGS is "-", the shim loaded with no setting and no report
# when "+", else both ends under the shim with FLAGS (comma separated
# launcher flags) and a report in $VM_LOGDIR/TAG.report. KIND lat prints t_typical (us); KIND bw prints
# "BW average (MB/s) msg rate (Mpps)". Prints nothing on failure.
perf_pair() {
  local kind=$1 tag=$2 test=$3 size=$4 iters=$5 launcher_flags=$6
  shift 6
  local pre=() flag_words=()
  if [ "$launcher_flags" = + ]; then
    pre=("$VERBSEMU" run)
  elif [ "$launcher_flags" != - ]; then
    IFS=, read -r -a flag_words <<<"$launcher_flags"
    shim_prefix "$VM_LOGDIR/$tag.report" "${flag_words[@]}"
    pre=("${PREFIX[@]}")
  fi
  local attempt port
  for attempt in 1 2; do
    port=$(new_port)
    rm -f "$VM_LOGDIR/$tag.report"
    if run_pair "$tag" "${PERF_TIMEOUT:-300}" "tcp_listening $port" \
      -- "${pre[@]}" "$test" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s "$size" -n "$iters" "$@" \
      -- "${pre[@]}" "$test" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s "$size" -n "$iters" "$@" "$SERVER_ADDR"; then
      perf_result "$kind" "$tag" "$size" "$iters"
      return 0
    fi
    # perftest on rxe now and then loses its out-of-band exchange at the end
    # of a run (natively too: "Couldn't read remote address", or both ends
    # exit 17 without a word). Only that failure gets one new try, on a new
    # port; the first try's logs are kept as TAG.try1.*. A hang or any other
    # failure is reported as it is.
    if [ "$attempt" = 2 ] || ! perftest_oob_failure "$tag"; then return 0; fi
  done
}

# perf_result KIND TAG SIZE ITERS: perftest's result row from TAG's client log.
perf_result() {
  local kind=$1 tag=$2 size=$3 iters=$4
  if [ "$kind" = lat ]; then
    perftest_row "$VM_LOGDIR/$tag.client" | awk -v s="$size" -v n="$iters" \
      'NF >= 9 && $1 == s && $2 == n && $3 > 0 && $3 <= $5 && $5 <= $4 {print $5}'
  else
    perftest_row "$VM_LOGDIR/$tag.client" | awk -v s="$size" -v n="$iters" \
      'NF >= 5 && $1 == s && $2 == n && $4 > 0 {print $4, $5}'
  fi
}

# spin_own_case TEST REPORT (LAT_US set by the suite): the waits the spins made, without the time
# their threads lost the CPU, are the target (two of it for a READ) within
# 2%; the time the CPU was lost is the machine's, not the spin's.
spin_own_case() {
  local legs=1 own late
  [ "$1" = ib_read_lat ] && legs=2
  if [ "${VERBSEMU_LATENCY_MODE:-spin}" = defer ]; then
    # Defer's waits are hand-overs; the ones that came late are what it
    # adds beyond the target (the split by lost CPU is a spin's).
    late=$(report_late_p50 "$2")
    [ -n "$late" ] || flunk "the shim's report has no waits line" "$2"
    echo "defer: hand-overs late by p50 $late us (target $((legs * LAT_US)) us)"
    awk -v l="$late" -v t="$((legs * LAT_US))" 'BEGIN {exit !(l <= 0.05 * t)}' ||
      flunk "defer's hand-overs were late by p50 $late us, over 5% of $((legs * LAT_US)) us" "$2"
    return
  fi
  own=$(report_spin_own "$2")
  [ -n "$own" ] || flunk "the shim's report has no waits line" "$2"
  echo "the spin's own wait per post: $own us for $legs x $LAT_US us"
  awk -v o="$own" -v t="$((legs * LAT_US))" 'BEGIN {d = o - t; if (d < 0) d = -d; exit !(d <= 0.02 * t)}' ||
    flunk "the spin's own wait per post is $own us, not $((legs * LAT_US)) us within 2%" "$2"
}
