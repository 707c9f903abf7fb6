#!/usr/bin/env bats
# libverbsemu.so on rxe, inside soft-roce/vm (either topology): perftest
# latency and bandwidth tests (default ibv_wr_* path and --use_old_post_send),
# ibv_rc_pingpong and rping run under the shim with emulation on. Each case
# checks that the program completed with a sane result, that the shim saw the
# traffic (its report), and that latency or bandwidth moved the right way
# against a native run of the same test in the same boot.
# Host side, first: bazel build //shim/...
# Then: tests/vm/run shim/vm_tests.bats
#   or: soft-roce/vm --topology pair -- bats shim/vm_tests.bats

load ../tests/vm/common
load vm_suite

lat_run() { # TAG TEST SIZE ITERS FLAGS|- EXTRA... -> "t_min t_typical" (us)
  local tag=$1
  [ -n "$(perf_pair lat "$@")" ] || return 0 # failed: print nothing
  perftest_row "$VM_LOGDIR/$tag.client" | awk 'NF >= 9 && $3 > 0 {print $3, $5}'
}
bw_run() { # TAG TEST SIZE ITERS FLAGS|- EXTRA... -> BW average (MB/s)
  perf_pair bw "$@" | awk '{print $1}'
}
min_of() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "") print b; else if (b == "") print a; else print (a < b ? a : b)}'; }

@test "the shim loads into ibv_devinfo and registers the device" {
  local out
  out=$("$VERBSEMU" run --report stderr --latency 1us -- ibv_devinfo -d "$SERVER_DEV" 2>&1) || true
  if ! echo "$out" | grep -q "PORT_ACTIVE" || ! echo "$out" | grep -q "^device $SERVER_DEV"; then
    flunk "no report for $SERVER_DEV: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
  fi
}

@test "the launcher rejects a bad value in one line" {
  local out rc=0
  out=$("$VERBSEMU" run --latency 2parsecs -- ibv_devinfo 2>&1) || rc=$?
  if [ "$rc" = 0 ] || [ "$(echo "$out" | wc -l)" != 1 ] || ! echo "$out" | grep -q VERBSEMU_LATENCY; then
    flunk "rc=$rc output: $out"
  fi
}

@test "the preloaded shim with a bad value says so in one line, the program runs" {
  local out
  out=$(LD_PRELOAD="$(vm_shim)" VERBSEMU_BANDWIDTH=fast \
    ibv_devinfo -d "$SERVER_DEV" 2>&1) || true
  if ! echo "$out" | grep -q PORT_ACTIVE || [ "$(echo "$out" | grep -c "verbsemu:")" != 1 ]; then
    flunk "$(echo "$out" | grep verbsemu: | head -n 3)"
  fi
}

# perftest latency under +LAT_US on both ends. Judged on t_min, the best of up
# to 3 interleaved native/shim attempts: the spin is a hard floor under every
# iteration, while rxe in a 2-vCPU TCG guest on a loaded host stalls whole
# runs (a 4 ms timer tick waiting for rxe's softirq work while both perftest
# ends busy-poll, natively too), which inflates t_typical and sometimes even a
# run's t_min. Stalls only ever make a run slower, so the minimum over attempts
# is the honest comparison.
lat_case() { # TEST [--use_old_post_send]
  local test=$1 path=${2:-} extra=()
  local bmin="" emin="" btyp="" etyp="" ok=0 tag="" base emu attempt
  if [ -n "$path" ]; then extra=("$path"); fi
  for attempt in 1 2 3; do
    base=$(lat_run "${test}_native${path}_$attempt" "$test" 64 300 - "${extra[@]}")
    tag="${test}_shim${path}_$attempt"
    emu=$(lat_run "$tag" "$test" 64 300 "--latency,${LAT_US}us" "${extra[@]}")
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
    echo "+${LAT_US}us: t_min $bmin -> $emin us (t_typical $btyp -> $etyp us, attempt $attempt)"
    spin_own_case "$test" "$VM_LOGDIR/$tag.report"
  elif [ "$ok" = 2 ]; then
    flunk "the shim's report shows no work requests" "$VM_LOGDIR/$tag.report"
  elif [ -z "$bmin" ]; then
    flunk "did not complete in 3 attempts" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server" \
      "$VM_LOGDIR/${test}_native${path}_3.client" "$VM_LOGDIR/${test}_native${path}_3.server"
  else
    flunk "best t_min $bmin -> $emin us does not show +${LAT_US} us" "$VM_LOGDIR/$tag.client"
  fi
}

@test "ib_send_lat +100us" { lat_case ib_send_lat; }
@test "ib_write_lat +100us" { lat_case ib_write_lat; }
@test "ib_read_lat +100us" { lat_case ib_read_lat; }
@test "ib_send_lat --use_old_post_send +100us" { lat_case ib_send_lat --use_old_post_send; }
@test "ib_write_lat --use_old_post_send +100us" { lat_case ib_write_lat --use_old_post_send; }
@test "ib_read_lat --use_old_post_send +100us" { lat_case ib_read_lat --use_old_post_send; }

# perftest bandwidth: pace at 25% of the native rate measured here.
pace_case() { # TEST [--use_old_post_send]
  local test=$1 path=${2:-} extra=() base emu tag
  if [ -n "$path" ]; then extra=("$path"); fi
  base=$(bw_run "${test}_native$path" "$test" 65536 300 - "${extra[@]}")
  [ -n "$base" ] || flunk "native run did not complete" "$VM_LOGDIR/${test}_native$path.client" \
    "$VM_LOGDIR/${test}_native$path.server"
  tag="${test}_pace$path"
  emu=$(bw_run "$tag" "$test" 65536 300 "--bandwidth,25%,--bw-mode,pace,--link-bandwidth,${base}MiB/s" "${extra[@]}")
  [ -n "$emu" ] || flunk "did not complete under the shim" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
  report_saw "$VM_LOGDIR/$tag.report" || flunk "the shim's report shows no work requests" "$VM_LOGDIR/$tag.report"
  awk -v b="$base" -v e="$emu" 'BEGIN {exit !(e < 0.6 * b && e > 0.05 * b)}' ||
    flunk "$base -> $emu MB/s is not about a quarter" "$VM_LOGDIR/$tag.client"
  echo "$base -> $emu MB/s"
}

@test "ib_send_bw pace 25%" { pace_case ib_send_bw; }
@test "ib_write_bw pace 25%" { pace_case ib_write_bw; }
@test "ib_send_bw --use_old_post_send pace 25%" { pace_case ib_send_bw --use_old_post_send; }
@test "ib_write_bw --use_old_post_send pace 25%" { pace_case ib_write_bw --use_old_post_send; }

@test "ib_write_bw pad 25%" {
  local base emu pad tag=ib_write_bw_pad native=ib_write_bw_native_pad
  base=$(bw_run "$native" ib_write_bw 65536 300 -)
  [ -n "$base" ] || flunk "native run did not complete" "$VM_LOGDIR/$native.client" "$VM_LOGDIR/$native.server"
  emu=$(bw_run "$tag" ib_write_bw 65536 300 "--bandwidth,25%")
  [ -n "$emu" ] || flunk "did not complete under the shim" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
  pad=$(report_field "$VM_LOGDIR/$tag.report" "padding ")
  [ "${pad:-0}" != 0 ] || flunk "no padding sent" "$VM_LOGDIR/$tag.report"
  awk -v b="$base" -v e="$emu" 'BEGIN {exit !(e < b)}' || flunk "$base -> $emu MB/s did not drop" "$VM_LOGDIR/$tag.client"
  echo "$base -> $emu MB/s, $pad padding bytes"
}

# ibv_rc_pingpong (exported ibv_create_qp, ibv_post_send; ibv_get_cq_event is
# not used by default) with latency on both ends.
rc_pingpong() { # TAG FLAGS|-  -> prints usec/iter
  local tag=$1 launcher_flags=$2 port pre=() flag_words=()
  port=$(new_port)
  if [ "$launcher_flags" != - ]; then
    IFS=, read -r -a flag_words <<<"$launcher_flags"
    shim_prefix "$VM_LOGDIR/$tag.report" "${flag_words[@]}"
    pre=("${PREFIX[@]}")
  fi
  if run_pair "$tag" 120 "tcp_listening $port" \
    -- "${pre[@]}" ibv_rc_pingpong -d "$SERVER_DEV" -g "$SERVER_GID" -p "$port" -n 200 -s 4096 \
    -- "${pre[@]}" ibv_rc_pingpong -d "$CLIENT_DEV" -g "$CLIENT_GID" -p "$port" -n 200 -s 4096 "$SERVER_ADDR" &&
    grep -q "^1638400 bytes in" "$VM_LOGDIR/$tag.client" && grep -q "^200 iters in" "$VM_LOGDIR/$tag.server"; then
    awk '/iters in/ {print $(NF-1)}' "$VM_LOGDIR/$tag.client"
  fi
}

@test "ibv_rc_pingpong with added latency" {
  local base emu lat
  base=$(rc_pingpong rc_pingpong_native -)
  lat=$(awk -v b="${base:-0}" -v l="$LAT_US" 'BEGIN {printf "%d", (b / 2 > l ? b / 2 : l)}')
  emu=$(rc_pingpong rc_pingpong_shim "--latency,${lat}us")
  if [ -z "$base" ] || [ -z "$emu" ]; then
    flunk "did not complete (native '$base', shim '$emu')" "$VM_LOGDIR/rc_pingpong_native.client" \
      "$VM_LOGDIR/rc_pingpong_native.server" "$VM_LOGDIR/rc_pingpong_shim.client" "$VM_LOGDIR/rc_pingpong_shim.server"
  fi
  report_saw "$VM_LOGDIR/rc_pingpong_shim.report" ||
    flunk "the shim's report shows no work requests" "$VM_LOGDIR/rc_pingpong_shim.report"
  awk -v b="$base" -v e="$emu" -v l="$lat" 'BEGIN {exit !(e - b >= l)}' ||
    flunk "$base -> $emu usec/iter does not show the added latency of ${lat} us" "$VM_LOGDIR/rc_pingpong_shim.client"
  echo "+${lat}us: $base -> $emu usec/iter, all bytes and iterations"
}

# rping (librdmacm: rdma_create_qp -> inline ibv_create_qp_ex -> the patched
# verbs_context slot), latency and padding on both ends.
@test "rping under the shim" {
  local port tag=rping_shim count=20 pings delay asan=()
  # rping never stops its CM thread: after main() has closed the event
  # channel, that thread reads it and exits 255 if exit() is slow enough.
  # LeakSanitizer's scan at exit is (measured: with it, both ends exit 255
  # under the ASan-built shim; without it, 0), so rping runs without it.
  if [ -n "${ASAN_OPTIONS:-}" ]; then
    asan=(env "ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0")
  fi
  port=$(new_port)
  shim_prefix "$VM_LOGDIR/$tag.report" --latency "${LAT_US}us" --bandwidth 50%
  run_pair "$tag" 120 "cm_listening $port" \
    -- "${asan[@]}" "${PREFIX[@]}" rping -s -a "$SERVER_ADDR" -p "$port" -C "$count" -v \
    -- "${asan[@]}" "${PREFIX[@]}" rping -c -a "$SERVER_ADDR" -p "$port" -C "$count" -v ||
    flunk "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
  pings=$(grep -c "^ping data: rdma-ping-" "$VM_LOGDIR/$tag.client" || true)
  delay=$(report_field "$VM_LOGDIR/$tag.report" "delay injected ")
  if [ "$pings" != "$count" ] || ! report_saw "$VM_LOGDIR/$tag.report" ||
    ! awk -v d="$delay" 'BEGIN {exit !(d > 0)}'; then
    flunk "pings $pings/$count, delay '$delay' ms" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.report"
  fi
  echo "$pings pings verified, ${delay} ms delay injected"
}

# Connection lifetimes in one process under the shim: shim/cm_cycles makes
# and destroys a cm id, PD, CQ, MR and QP per end 10,000 times, one send per
# connection. The shim's per-object state must go with its objects: resident
# memory after the run against after a 100-cycle warm-up (allocator pools,
# provider caches filled).
# 10,000 cycles (about 2 minutes in the guest) where the device talks to
# itself; across the veth pair the same objects come and go, so 1,000 check
# the path there without spending the minutes twice.
# With padding on, so each cycle also makes and drops a QP's padding
# sender; in tools/test's single boot the latency is deferred, so each
# cycle also makes and drops the deferring QP's queues.
@test "rdma_cm cycles under the shim (10,000 on one device): resident memory grows by less than 1 MiB" {
  local prog tag=cm_cycles log summary growth cycles=10000
  [ "$TOPOLOGY" = single ] || cycles=1000
  prog="$VERBSEMU_HELPERS/cm_cycles"
  [ -x "$prog" ] || flunk "$prog missing: bazel build //shim/... on the host"
  log="$VM_LOGDIR/$tag.log"
  shimmed "$VM_LOGDIR/$tag.report" --latency 1us --bandwidth 50% --bw-mode pad -- \
    "$prog" --addr "$SERVER_ADDR" --port "$(new_port)" --cycles "${VM_CM_CYCLES:-$cycles}" >"$log" 2>&1 ||
    flunk "exited $?" "$log"
  summary=$(grep "^cycles " "$log" | tail -n 1)
  growth=$(echo "$summary" | awk '{for (i = 1; i < NF; i++) if ($i == "growth_kib") print $(i + 1)}')
  [[ "$growth" =~ ^-?[0-9]+$ ]] || flunk "no summary line" "$log"
  # Under the ASan-built shim (tests/vm/run --shim-build asan) ASan's
  # allocator serves the heap: its quarantine keeps up to 256 MiB of freed
  # memory resident by design, and its caches grow for ~500 cycles (measured:
  # flat after that with quarantine_size_mb=0). There the case checks what
  # ASan and LeakSanitizer say (the exit status), not the resident size.
  if [ -z "${ASAN_OPTIONS:-}" ]; then
    [ "$growth" -lt 1024 ] || flunk "resident memory grew by $growth KiB" "$log"
  fi
  report_saw "$VM_LOGDIR/$tag.report" || flunk "the shim's report shows no work requests" "$VM_LOGDIR/$tag.report"
  echo "$summary"
}

# The shim arms the report signal when the program opens its device: wait for
# the handler itself (SIGUSR2, bit 11 of SigCgt); the program's stdout is a
# file, fully buffered, so its own lines come only at exit.
usr2_caught() {
  local mask
  mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [ -n "$mask" ] && (((16#$mask >> 11) & 1))
}

# On-request report: SIGUSR2 to a running perftest client (after it has
# connected, so the shim has armed the signal) writes the report while the run
# goes on, and the run still completes.
@test "report on SIGUSR2 while running" {
  local port tag=report_signal slog clog rep spid cpid="" watchdog="" crc=1 src=0 reports
  local report_while_running=no
  port=$(new_port)
  slog="$VM_LOGDIR/$tag.server" clog="$VM_LOGDIR/$tag.client" rep="$VM_LOGDIR/$tag.report"
  rm -f "$rep"
  # Background processes close bats' fd 3, or bats would wait for them.
  timeout 300 "$VERBSEMU" run --latency 1us ib_write_lat -d "$SERVER_DEV" -x "$SERVER_GID" \
    -p "$port" -n 100000 >"$slog" 2>&1 3>&- &
  spid=$!
  if wait_until 60 tcp_listening "$port"; then
    # No timeout wrapper: the launcher execs the program, so $! is the program
    # itself, the process to signal; a watchdog bounds it instead.
    "$VERBSEMU" run --latency 1us --report "$rep" --report-signal USR2 \
      ib_write_lat -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -n 100000 "$SERVER_ADDR" >"$clog" 2>&1 3>&- &
    cpid=$!
    # No output descriptors: a sleep holding one would keep the runner waiting.
    (sleep 300 && kill "$cpid") >/dev/null 2>&1 3>&- &
    watchdog=$!
  fi
  if [ -n "$cpid" ] && wait_until 60 usr2_caught "$cpid"; then
    kill -USR2 "$cpid" 2>/dev/null || true
    if wait_until 60 grep -q "^verbsemu report" "$rep" && kill -0 "$cpid" 2>/dev/null; then
      report_while_running=yes
    fi
  fi
  if [ -n "$cpid" ]; then
    crc=0
    wait "$cpid" || crc=$?
    kill "$watchdog" 2>/dev/null || true
  fi
  wait "$spid" || src=$?
  reports=$(grep -c "^verbsemu report" "$rep" 2>/dev/null || true)
  if [ "$report_while_running" != yes ] || [ "$crc" != 0 ] || [ "$src" != 0 ] || ! [ "${reports:-0}" -ge 2 ]; then
    flunk "report during the run: $report_while_running, exits $crc/$src, reports ${reports:-0}" "$clog" "$rep"
  fi
  echo "$reports reports (on request, at exit), run completed"
}
