#!/usr/bin/env bash
# libverbsemu.so on rxe, inside soft-roce/vm (either topology): perftest
# latency and bandwidth tests (default ibv_wr_* path and --use_old_post_send),
# ibv_rc_pingpong and rping run under the shim with emulation on. Each case
# checks that the program completed with a sane result, that the shim saw the
# traffic (its report), and that latency or bandwidth moved the right way
# against a native run of the same test in the same boot.
# Host side, first: bazel build //shim/...
# Then: tests/vm/run shim/vm_tests.sh
#   or: soft-roce/vm --topology pair -- shim/vm_tests.sh
source "$(dirname "$0")/../tests/vm/lib.sh"
source "$(dirname "$0")/vm_lib.sh"
LAT_US=${VM_SHIM_LATENCY_US:-100}  # large against rxe's 12-70 us noise

if ! have_rxe; then
  skip shim "no active rxe port (run inside soft-roce/vm)"
  summary
  exit 0
fi
if ! shim_ready; then
  fail shim "$VERBSEMU or libverbsemu.so missing: bazel build //shim:libverbsemu.so //shim:verbsemu on the host"
  summary
  exit 0
fi

lat_run() {  # TAG TEST SIZE ITERS FLAGS|- EXTRA... -> "t_min t_typical" (us)
  local tag=$1
  [ -n "$(perf_pair lat "$@")" ] || return 0  # failed: print nothing
  perftest_row "$VM_LOGDIR/$tag.client" | awk 'NF >= 9 && $3 > 0 {print $3, $5}'
}
bw_run() {  # TAG TEST SIZE ITERS FLAGS|- EXTRA... -> BW average (MB/s)
  perf_pair bw "$@" | awk '{print $1}'
}

# 0. The shim loads into a verbs program and sees the device.
out=$("$VERBSEMU" run --report stderr --latency 1us -- ibv_devinfo -d "$SERVER_DEV" 2>&1)
if echo "$out" | grep -q "PORT_ACTIVE" && echo "$out" | grep -q "^device $SERVER_DEV"; then
  pass "shim loaded into ibv_devinfo and registered $SERVER_DEV [$TOPOLOGY]"
else
  fail "shim in ibv_devinfo [$TOPOLOGY]" "no report for $SERVER_DEV: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
fi

# 0b. A bad value: one line, the command does not start.
out=$("$VERBSEMU" run --latency 2parsecs -- ibv_devinfo 2>&1)
rc=$?
if [ "$rc" != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q VERBSEMU_LATENCY; then
  pass "launcher rejects a bad value in one line"
else
  fail "launcher bad value" "rc=$rc output: $out"
fi
# ... and the preloaded shim with a bad environment says so once, runs unemulated.
out=$(LD_PRELOAD="$(readlink -f "$(dirname "$VERBSEMU")/libverbsemu.so")" VERBSEMU_BANDWIDTH=fast ibv_devinfo -d "$SERVER_DEV" 2>&1)
if echo "$out" | grep -q PORT_ACTIVE && [ "$(echo "$out" | grep -c "verbsemu:")" = 1 ]; then
  pass "preloaded shim with a bad value: one line, program runs"
else
  fail "preloaded shim bad value" "$(echo "$out" | grep verbsemu: | head -n 3)"
fi

# 0c. A stack that dlopen()s libibverbs privately and opens the device through
#     symbols from its own handle: only the verbs_open_device hook sees it.
probe="$(dirname "$VERBSEMU")/dlopen_probe"
if [ -x "$probe" ]; then
  out=$("$VERBSEMU" run --report stderr -- "$probe" 2>&1)
  if echo "$out" | grep -q "^opened " && echo "$out" | grep -q "^device "; then
    pass "privately dlopen'ed libibverbs: device caught by the verbs_open_device hook"
  else
    fail "privately dlopen'ed libibverbs" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
  fi
else
  fail "privately dlopen'ed libibverbs" "$probe missing: bazel build //shim/... on the host"
fi

# 1. perftest latency under +LAT_US on both ends. Judged on t_min, the best
#    of up to 3 interleaved native/shim attempts: the spin is a hard floor
#    under every iteration, while rxe in a 2-vCPU TCG guest on a loaded host
#    stalls whole runs (a 4 ms timer tick waiting for rxe's softirq work while
#    both perftest ends busy-poll, natively too), which inflates t_typical and
#    sometimes even a run's t_min. Stalls only ever make a run slower, so the
#    minimum over attempts is the honest comparison.
min_of() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "") print b; else if (b == "") print a; else print (a < b ? a : b)}'; }
for path in "" --use_old_post_send; do
  for test in ib_send_lat ib_write_lat ib_read_lat; do
    name="$test${path:+ $path} +${LAT_US}us [$TOPOLOGY]"
    bmin="" emin="" btyp="" etyp="" ok=0 tag=""
    for attempt in 1 2 3; do
      base=$(lat_run "${test}_native${path}_$attempt" "$test" 64 300 - $path)
      tag="${test}_shim${path}_$attempt"
      emu=$(lat_run "$tag" "$test" 64 300 "--latency,${LAT_US}us" $path)
      if [ -z "$base" ] || [ -z "$emu" ]; then
        continue
      fi
      if ! report_saw "$VM_LOGDIR/$tag.report"; then
        ok=2
        break
      fi
      bmin=$(min_of "$bmin" "${base%% *}")
      emin=$(min_of "$emin" "${emu%% *}")
      btyp=${base#* } etyp=${emu#* }
      if awk -v b="$bmin" -v e="$emin" -v l="$LAT_US" 'BEGIN {exit !(e - b >= 0.5 * l)}'; then
        ok=1
        break
      fi
    done
    if [ "$ok" = 1 ]; then
      pass "$name: t_min $bmin -> $emin us (t_typical $btyp -> $etyp us, attempt $attempt)"
    elif [ "$ok" = 2 ]; then
      fail "$name" "the shim's report shows no work requests" "$VM_LOGDIR/$tag.report"
    elif [ -z "$bmin" ]; then
      fail "$name" "did not complete in 3 attempts" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
    else
      fail "$name" "best t_min $bmin -> $emin us does not show +${LAT_US} us" "$VM_LOGDIR/$tag.client"
    fi
  done
done

# 2. perftest bandwidth: pace at 25% of the native rate measured here, and pad.
for path in "" --use_old_post_send; do
  for test in ib_send_bw ib_write_bw; do
    base=$(bw_run "${test}_native$path" "$test" 65536 300 - $path)
    name="$test${path:+ $path} pace 25% [$TOPOLOGY]"
    if [ -z "$base" ]; then
      fail "$name" "native run did not complete" "$VM_LOGDIR/${test}_native$path.client"
      continue
    fi
    tag="${test}_pace$path"
    emu=$(bw_run "$tag" "$test" 65536 300 "--bandwidth,25%,--bw-mode,pace,--link-bandwidth,${base}MiB/s" $path)
    if [ -z "$emu" ]; then
      fail "$name" "did not complete under the shim" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
    elif ! report_saw "$VM_LOGDIR/$tag.report"; then
      fail "$name" "the shim's report shows no work requests" "$VM_LOGDIR/$tag.report"
    elif awk -v b="$base" -v e="$emu" 'BEGIN {exit !(e < 0.6 * b && e > 0.05 * b)}'; then
      pass "$name: $base -> $emu MB/s"
    else
      fail "$name" "$base -> $emu MB/s is not about a quarter" "$VM_LOGDIR/$tag.client"
    fi
  done
done
base=$(bw_run ib_write_bw_native_pad ib_write_bw 65536 300 -)
tag=ib_write_bw_pad
emu=$(bw_run "$tag" ib_write_bw 65536 300 "--bandwidth,25%")
name="ib_write_bw pad 25% [$TOPOLOGY]"
pad=$(report_field "$VM_LOGDIR/$tag.report" "padding ")
if [ -z "$base" ] || [ -z "$emu" ]; then
  fail "$name" "did not complete (native '$base', shim '$emu')" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
elif [ "${pad:-0}" = 0 ]; then
  fail "$name" "no padding sent" "$VM_LOGDIR/$tag.report"
elif awk -v b="$base" -v e="$emu" 'BEGIN {exit !(e < b)}'; then
  pass "$name: $base -> $emu MB/s, $pad padding bytes"
else
  fail "$name" "$base -> $emu MB/s did not drop" "$VM_LOGDIR/$tag.client"
fi

# 3. ibv_rc_pingpong (exported ibv_create_qp, ibv_post_send, ibv_get_cq_event
#    is not used by default) with latency on both ends.
rc_pingpong() {  # TAG FLAGS|-  -> prints usec/iter
  local tag=$1 flags=$2 port
  port=$(new_port)
  local pre=()
  if [ "$flags" != - ]; then
    shim_prefix "$VM_LOGDIR/$tag.report" ${flags//,/ }
    pre=("${PREFIX[@]}")
  fi
  if run_pair "$tag" 120 "tcp_listening $port" \
    -- "${pre[@]}" ibv_rc_pingpong -d "$SERVER_DEV" -g "$SERVER_GID" -p "$port" -n 200 -s 4096 \
    -- "${pre[@]}" ibv_rc_pingpong -d "$CLIENT_DEV" -g "$CLIENT_GID" -p "$port" -n 200 -s 4096 "$SERVER_ADDR" &&
    grep -q "^1638400 bytes in" "$VM_LOGDIR/$tag.client" && grep -q "^200 iters in" "$VM_LOGDIR/$tag.server"; then
    awk '/iters in/ {print $(NF-1)}' "$VM_LOGDIR/$tag.client"
  fi
}
base=$(rc_pingpong rc_pingpong_native -)
lat=$(awk -v b="${base:-0}" -v l="$LAT_US" 'BEGIN {printf "%d", (b / 2 > l ? b / 2 : l)}')
emu=$(rc_pingpong rc_pingpong_shim "--latency,${lat}us")
name="ibv_rc_pingpong +${lat}us [$TOPOLOGY]"
if [ -z "$base" ] || [ -z "$emu" ]; then
  fail "$name" "did not complete (native '$base', shim '$emu')" "$VM_LOGDIR/rc_pingpong_shim.client" "$VM_LOGDIR/rc_pingpong_shim.server"
elif ! report_saw "$VM_LOGDIR/rc_pingpong_shim.report"; then
  fail "$name" "the shim's report shows no work requests" "$VM_LOGDIR/rc_pingpong_shim.report"
elif awk -v b="$base" -v e="$emu" -v l="$lat" 'BEGIN {exit !(e - b >= l)}'; then
  pass "$name: $base -> $emu usec/iter, all bytes and iterations"
else
  fail "$name" "$base -> $emu usec/iter does not show the added latency" "$VM_LOGDIR/rc_pingpong_shim.client"
fi

# 4. rping (librdmacm: rdma_create_qp -> inline ibv_create_qp_ex -> the
#    patched verbs_context slot), latency and padding on both ends.
port=$(new_port)
tag="rping_shim"
count=20
shim_prefix "$VM_LOGDIR/$tag.report" --latency "${LAT_US}us" --bandwidth 50%
if run_pair "$tag" 120 "cm_listening $port" \
  -- "${PREFIX[@]}" rping -s -a "$SERVER_ADDR" -p "$port" -C "$count" -v \
  -- "${PREFIX[@]}" rping -c -a "$SERVER_ADDR" -p "$port" -C "$count" -v; then
  pings=$(grep -c "^ping data: rdma-ping-" "$VM_LOGDIR/$tag.client")
  delay=$(report_field "$VM_LOGDIR/$tag.report" "delay injected ")
  if [ "$pings" = "$count" ] && report_saw "$VM_LOGDIR/$tag.report" &&
    awk -v d="$delay" 'BEGIN {exit !(d > 0)}'; then
    pass "rping under the shim [$TOPOLOGY]: $pings pings verified, ${delay} ms delay injected"
  else
    fail "rping under the shim [$TOPOLOGY]" "pings $pings/$count, delay '$delay' ms" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.report"
  fi
else
  fail "rping under the shim [$TOPOLOGY]" "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
fi
# 5. On-request report: SIGUSR2 to a running perftest client (after it has
#    connected, so the shim has armed the signal) writes the report while the
#    run goes on, and the run still completes.
port=$(new_port)
tag="report_signal"
slog="$VM_LOGDIR/$tag.server" clog="$VM_LOGDIR/$tag.client" rep="$VM_LOGDIR/$tag.report"
rm -f "$rep"
timeout 300 "$VERBSEMU" run --latency 1us ib_write_lat -d "$SERVER_DEV" -x "$SERVER_GID" \
  -p "$port" -n 100000 >"$slog" 2>&1 &
spid=$!
cpid=""
if wait_until 60 tcp_listening "$port"; then
  # No timeout wrapper: the launcher execs the program, so $! is the program
  # itself, the process to signal; a watchdog bounds it instead.
  "$VERBSEMU" run --latency 1us --report "$rep" --report-signal USR2 \
    ib_write_lat -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -n 100000 "$SERVER_ADDR" >"$clog" 2>&1 &
  cpid=$!
  # (no stdout/stderr: a sleep holding the suite's output pipe would keep
  # guest-run's command substitution waiting)
  (sleep 300 && kill "$cpid") >/dev/null 2>&1 &
  watchdog=$!
fi
# The shim arms the signal when the program opens its device: wait for the
# handler itself (SIGUSR2, bit 11 of SigCgt); the program's stdout is a file,
# fully buffered, so its own lines come only at exit.
usr2_caught() {
  local mask
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [ -n "$mask" ] && (((16#$mask >> 11) & 1))
}
report_while_running=no
if [ -n "$cpid" ] && wait_until 60 usr2_caught "$cpid"; then
  kill -USR2 "$cpid" 2>/dev/null
  if wait_until 60 grep -q "^verbsemu report" "$rep" && kill -0 "$cpid" 2>/dev/null; then
    report_while_running=yes
  fi
fi
crc=1
if [ -n "$cpid" ]; then
  wait "$cpid"
  crc=$?
  kill "$watchdog" 2>/dev/null
fi
wait "$spid"
src=$?
reports=$(grep -c "^verbsemu report" "$rep" 2>/dev/null)
if [ "$report_while_running" = yes ] && [ "$crc" = 0 ] && [ "$src" = 0 ] && [ "${reports:-0}" -ge 2 ]; then
  pass "report on SIGUSR2 while running [$TOPOLOGY]: $reports reports (on request, at exit), run completed"
else
  fail "report on SIGUSR2 while running [$TOPOLOGY]" \
    "report during the run: $report_while_running, exits $crc/$src, reports ${reports:-0}" "$clog" "$rep"
fi
summary
