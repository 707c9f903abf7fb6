#!/usr/bin/env bash
# End-to-end accuracy of libverbsemu.so on rxe (the second
# level). Runs inside soft-roce/vm, pair topology (rxe0 <-> rxe1 over veth);
# native and shim runs alternate within the one boot, so boot-to-boot noise
# (about +-50% on rxe in TCG) cancels. Prints markdown tables.
#
# Host side, first: bazel build //shim/...
# Then: soft-roce/vm --topology pair --timeout 5400 -- tools/accuracy_e2e.sh [--rounds N] [--quick]
#   [--only lat,bw,knobs] [--targets "0 20"] [--lat-iters N] [--bw-tests "ib_read_bw"] [--shares "25"]
#
# Latency: added latency = median of the shim runs' t_typical - median of the
# native runs' t_typical; CI = approximate 95% interval of that difference of
# medians (1.96 * 1.2533 * robust sd / sqrt(n), robust sd = 1.4826 * MAD);
# noise floor = robust sd of the native runs' t_typical. A second estimate
# uses perftest's t_min (the spin is a floor under every iteration, and t_min
# escapes the whole-run timer-tick stalls rxe shows in a 2-vCPU TCG guest).
# Target +0 is the shim loaded with emulation off: its own cost here.
# Bandwidth: measured = median shim BW / median native BW, against the target
# share; noise floor = robust relative sd of the native runs.
set -u
cd "$(dirname "$0")/.." || exit 1
source tests/vm/lib.sh
source shim/vm_lib.sh

ROUNDS=4
BW_ROUNDS=3
LAT_ITERS=1000
BW_SIZE=1048576
BW_ITERS=40
SECTIONS=lat,bw,knobs
LAT_TESTS="ib_send_lat ib_write_lat"
LAT_TARGETS="0 1 2 4 8 16 20 64"
BW_TESTS="ib_write_bw ib_read_bw"
SHARES="100 75 50 25 10"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; BW_ROUNDS=$2; shift 2 ;;
    --quick) ROUNDS=2; BW_ROUNDS=1; LAT_ITERS=300; BW_ITERS=15; shift ;;
    --only) SECTIONS=$2; shift 2 ;;
    --lat-tests) LAT_TESTS=$2; shift 2 ;;
    --targets) LAT_TARGETS=$2; shift 2 ;;
    --lat-iters) LAT_ITERS=$2; shift 2 ;;
    --bw-tests) BW_TESTS=$2; shift 2 ;;
    --shares) SHARES=$2; shift 2 ;;
    *) echo "accuracy_e2e.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if ! have_rxe; then
  echo "accuracy_e2e.sh: no active rxe port; run it inside soft-roce/vm" >&2
  exit 2
fi
if ! shim_ready; then
  echo "accuracy_e2e.sh: build //shim:libverbsemu.so and //shim:verbsemu on the host first" >&2
  exit 2
fi
PERF_TIMEOUT=600
export PERF_TIMEOUT

# The guest's busybox awk has no math library: square root by Newton.
AWK_SQRT='function sq(x,  r, i) { if (x <= 0) return 0; r = (x > 1) ? x : 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }'

# stats VALUES...: "median mad_sd n", robust against the runs that rxe in a
# TCG guest stalls on a timer tick (ms-long): mad_sd = 1.4826 * MAD.
stats() {
  local sorted med
  sorted=$(printf '%s\n' "$@" | sort -n)
  med=$(echo "$sorted" | awk '{v[NR] = $1} END {n = NR; if (n == 0) {print "nan"; exit}
    printf "%.4f\n", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2}')
  echo "$sorted" | awk -v m="$med" '{d = $1 - m; if (d < 0) d = -d; print d}' | sort -n |
    awk -v m="$med" '{v[NR] = $1} END {n = NR; if (n == 0) {print "nan nan 0"; exit}
      mad = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      printf "%s %.4f %d\n", m, 1.4826 * mad, n}'
}

echo "## verbsemu end-to-end accuracy on rxe (soft-roce/vm, topology ${TOPOLOGY})"
echo
echo "$(date -u +%FT%TZ); $(uname -r); ${ROUNDS} latency rounds, ${BW_ROUNDS} bandwidth rounds;" \
  "devices $SERVER_DEV <-> $CLIENT_DEV"

section() { [[ ",$SECTIONS," == *",$1,"* ]]; }

# ---------------------------------------------------------------- latency
if section lat; then
echo
echo "### Added latency (both ends under the shim; perftest t_typical = median and t_min, ${LAT_ITERS} iterations, 64 B, ${ROUNDS} interleaved runs each)"
echo
echo "Target +0: the shim loaded with no setting and no report (nothing patched). Injected per post: the shims' reports, delay injected over posts (both ends); the spin's own: the same without the time the spinning thread lost the CPU for over 1 us (the reports' waits lines)."
echo
echo "| test | target | native t_typical | shim t_typical | measured added | 95% CI | error % | added by t_min | error % (t_min) | injected per post (report) | error % (report) | the spin's own per post | error % (spin's own) | noise floor (robust sd of native t_typical) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

lat_pair() {  # TAG ARGS... -> "t_min t_typical"
  local tag=$1
  [ -n "$(perf_pair lat "$@")" ] || return 0
  perftest_row "$VM_LOGDIR/$tag.client" | awk 'NF >= 9 && $3 > 0 {print $3, $5}'
}
for test in $LAT_TESTS; do
  for target in $LAT_TARGETS; do
    nat=() emu=() natmin=() emumin=() inj=() own=()
    flags="--latency,${target}us"
    [ "$target" = 0 ] && flags=+
    for r in $(seq "$ROUNDS"); do
      v=$(lat_pair "acc_${test}_n${target}_$r" "$test" 64 "$LAT_ITERS" -)
      if [ -n "$v" ]; then nat+=("${v#* }"); natmin+=("${v%% *}"); fi
      tag="acc_${test}_s${target}_$r"
      v=$(lat_pair "$tag" "$test" 64 "$LAT_ITERS" "$flags")
      if [ -n "$v" ]; then emu+=("${v#* }"); emumin+=("${v%% *}"); fi
      if [ "$target" != 0 ] && [ -n "$v" ]; then
        inj+=("$(awk -v d="$(report_field "$VM_LOGDIR/$tag.report" "delay injected ")" \
          -v p="$(report_field "$VM_LOGDIR/$tag.report" "posts ")" 'BEGIN {if (p > 0) printf "%.4f\n", d * 1000 / p}')")
        v=$(report_spin_own "$VM_LOGDIR/$tag.report")
        [ -n "$v" ] && own+=("$v")
      fi
    done
    if [ ${#nat[@]} = 0 ] || [ ${#emu[@]} = 0 ]; then
      echo "| $test | +${target} us | (failed: ${#nat[@]} native, ${#emu[@]} shim runs) | | | | | | | | | | | |"
      continue
    fi
    injm=nan
    [ ${#inj[@]} -gt 0 ] && read -r injm _ _ <<<"$(stats "${inj[@]}")"
    ownm=nan
    [ ${#own[@]} -gt 0 ] && read -r ownm _ _ <<<"$(stats "${own[@]}")"
    read -r nm nsd nn <<<"$(stats "${nat[@]}")"
    read -r sm ssd sn <<<"$(stats "${emu[@]}")"
    read -r nmin _ _ <<<"$(stats "${natmin[@]}")"
    read -r smin _ _ <<<"$(stats "${emumin[@]}")"
    awk -v t="$target" -v nm="$nm" -v sm="$sm" -v nsd="$nsd" -v ssd="$ssd" -v nn="$nn" -v sn="$sn" \
      -v nmin="$nmin" -v smin="$smin" -v test="$test" -v inj="$injm" -v own="$ownm" "$AWK_SQRT"'
    BEGIN {
      d = sm - nm; ci = 1.96 * 1.2533 * sq(nsd * nsd / nn + ssd * ssd / sn)
      dm = smin - nmin
      err = (t > 0) ? sprintf("%+.1f", 100 * (d - t) / t) : "(shim cost)"
      errm = (t > 0) ? sprintf("%+.1f", 100 * (dm - t) / t) : "(shim cost)"
      fl = (t > 0) ? sprintf(" (%.0f%% of target)", 100 * nsd / t) : ""
      injs = (t > 0 && inj != "nan") ? sprintf("%.3f us", inj) : "-"
      erri = (t > 0 && inj != "nan") ? sprintf("%+.2f", 100 * (inj - t) / t) : "-"
      owns = (t > 0 && own != "nan") ? sprintf("%.3f us", own) : "-"
      erro = (t > 0 && own != "nan") ? sprintf("%+.2f", 100 * (own - t) / t) : "-"
      printf "| %s | +%g us | %.2f us | %.2f us | %+.2f us | +-%.2f us | %s | %+.2f us | %s | %s | %s | %s | %s | %.2f us%s |\n",
        test, t, nm, sm, d, ci, err, dm, errm, injs, erri, owns, erro, nsd, fl
    }'
  done
done

# -------------------------------------------------------------- bandwidth
fi
# bw_section TEST: native median, then each mode and share against the
# native runs adjacent to the shim's.
bw_section() {
local test=$1 nat=() v mode pct emu nat2 flags r nm nsd sm
echo
echo "### ${test}, ${BW_SIZE} B messages, ${BW_ITERS} iterations: target share of native bandwidth"
echo
for r in $(seq "$BW_ROUNDS"); do
  v=$(perf_pair bw "acc_${test}_native_$r" "$test" "$BW_SIZE" "$BW_ITERS" - | awk '{print $1}')
  [ -n "$v" ] && nat+=("$v")
done
if [ ${#nat[@]} = 0 ]; then
  echo "(native $test failed; see $VM_LOGDIR)"
  return
fi
read -r NAT_BW NAT_SD _ <<<"$(stats "${nat[@]}")"
echo "Native: median ${NAT_BW} MB/s over ${#nat[@]} runs (sd ${NAT_SD}); the link rate given to pace (and to pad for READs) is set to it."
echo
echo "| mode | target | native | shim | measured share | error % | noise floor (native rel. sd) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for mode in pad pace; do
  for pct in $SHARES; do
    emu=() nat2=()
    for r in $(seq "$BW_ROUNDS"); do
      v=$(perf_pair bw "acc_${test}_n_${mode}${pct}_$r" "$test" "$BW_SIZE" "$BW_ITERS" - | awk '{print $1}')
      [ -n "$v" ] && nat2+=("$v")
      flags="--bandwidth,${pct}%,--bw-mode,$mode"
      # pace needs the real rate for a share; so do READs in pad mode (their
      # responses come in on the other direction, which padding from this
      # side cannot fill: they are paced on an inbound virtual link).
      if [ "$mode" = pace ] || [ "$test" = ib_read_bw ]; then
        flags="$flags,--link-bandwidth,${NAT_BW}MiB/s"
      fi
      v=$(perf_pair bw "acc_${test}_${mode}${pct}_$r" "$test" "$BW_SIZE" "$BW_ITERS" "$flags" | awk '{print $1}')
      [ -n "$v" ] && emu+=("$v")
    done
    if [ ${#emu[@]} = 0 ] || [ ${#nat2[@]} = 0 ]; then
      echo "| $mode | ${pct}% | | (failed) | | | |"
      continue
    fi
    read -r nm nsd _ <<<"$(stats "${nat2[@]}")"
    read -r sm _ _ <<<"$(stats "${emu[@]}")"
    awk -v mode="$mode" -v p="$pct" -v nm="$nm" -v sm="$sm" -v nsd="$nsd" 'BEGIN {
      share = sm / nm; t = p / 100
      printf "| %s | %d%% | %.1f MB/s | %.1f MB/s | %.1f%% | %+.1f | %.1f%% |\n",
        mode, p, nm, sm, 100 * share, 100 * (share - t) / t, 100 * nsd / nm
    }'
  done
done
}
if section bw; then
  for test in $BW_TESTS; do bw_section "$test"; done
fi

# ------------------------------------------ message rate and knob crosstalk
if section knobs; then
echo
echo "### Knob independence"
echo
echo "| case | native | shim | shim / native | goal |"
echo "|---|---:|---:|---:|---|"
for mode in pad pace; do
  nat=() emu=()
  for r in $(seq "$BW_ROUNDS"); do
    v=$(perf_pair bw "acc_rate_n_${mode}_$r" ib_write_bw 64 20000 - | awk '{print $2}')
    [ -n "$v" ] && nat+=("$v")
    flags="--bandwidth,50%,--bw-mode,$mode"
    [ "$mode" = pace ] && flags="$flags,--link-bandwidth,${NAT_BW:-40}MiB/s"
    v=$(perf_pair bw "acc_rate_${mode}_$r" ib_write_bw 64 20000 "$flags" | awk '{print $2}')
    [ -n "$v" ] && emu+=("$v")
  done
  if [ ${#nat[@]} -gt 0 ] && [ ${#emu[@]} -gt 0 ]; then
    read -r nm _ _ <<<"$(stats "${nat[@]}")"
    read -r sm _ _ <<<"$(stats "${emu[@]}")"
    awk -v m="$mode" -v nm="$nm" -v sm="$sm" 'BEGIN {
      printf "| 64 B ib_write_bw message rate, bandwidth 50%% (%s) | %.4f Mpps | %.4f Mpps | %.1f%% | >= 98%% |\n", m, nm, sm, 100 * sm / nm }'
  else
    echo "| 64 B message rate, bandwidth 50% ($mode) | (failed) | | | |"
  fi
done
nat=() emu=()
for r in $(seq "$BW_ROUNDS"); do
  v=$(perf_pair bw "acc_latbw_n_$r" ib_write_bw "$BW_SIZE" "$BW_ITERS" - | awk '{print $1}')
  [ -n "$v" ] && nat+=("$v")
  v=$(perf_pair bw "acc_latbw_s_$r" ib_write_bw "$BW_SIZE" "$BW_ITERS" "--latency,8us" | awk '{print $1}')
  [ -n "$v" ] && emu+=("$v")
done
if [ ${#nat[@]} -gt 0 ] && [ ${#emu[@]} -gt 0 ]; then
  read -r nm nsd _ <<<"$(stats "${nat[@]}")"
  read -r sm _ _ <<<"$(stats "${emu[@]}")"
  awk -v nm="$nm" -v sm="$sm" -v nsd="$nsd" 'BEGIN {
    printf "| %d B ib_write_bw bandwidth under latency +8 us | %.1f MB/s | %.1f MB/s | %.1f%% (noise floor %.1f%%) | within 1%% |\n", '"$BW_SIZE"', nm, sm, 100 * sm / nm, 100 * nsd / nm }'
else
  echo "| bandwidth under latency +8 us | (failed) | | | |"
fi
fi
echo
echo "logs: $VM_LOGDIR"
