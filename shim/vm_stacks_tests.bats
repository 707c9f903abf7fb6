#!/usr/bin/env bats
# libverbsemu.so on rxe under the stacks users run, inside soft-roce/vm
# (either topology): a privately dlopen'ed libibverbs (NCCL's way) with
# Debian's library and one bound as Ubuntu's, the kernel's QP check (a QP
# behind the shim, and another process's traffic beside it), the report's
# port counters, an MPI application over UCX (LAMMPS), and `verbsemu doctor`.
# Each case checks what the shim saw (its report) and what it said.
# Host side, first: bazel build //shim/...
# Then: tests/vm/run shim/vm_stacks_tests.bats
#   or: soft-roce/vm --topology pair -- bats shim/vm_stacks_tests.bats

load ../tests/vm/common
load vm_suite

min_of() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "") print b; else if (b == "") print a; else print (a < b ? a : b)}'; }

# A stack that dlopen()s libibverbs privately and opens the device through
# symbols from its own handle: only the verbs_open_device hook sees it.
@test "privately dlopen'ed libibverbs: device caught by the verbs_open_device hook" {
  local probe out
  probe="$VERBSEMU_HELPERS/dlopen_probe"
  [ -x "$probe" ] || flunk "$probe missing: bazel build //shim/... on the host"
  out=$("$VERBSEMU" run --report stderr -- "$probe" 2>&1) || true
  if ! echo "$out" | grep -q "^opened " || ! echo "$out" | grep -q "^device "; then
    flunk "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
  fi
}

# The NCCL-style client (private dlopen, dlvsym on the handle, posts and
# polls through the context's ops) with both ends at +LAT_US, alternating
# with native runs: on Debian's libibverbs the shim sees its contexts through
# verbs_open_device; on a copy bound as Ubuntu's is (-Bsymbolic-functions:
# DF_SYMBOLIC set by set_df_symbolic) that call stays inside the library and
# only the provider's call to verbs_set_ops reaches the shim.
# ubuntu_binding_dir: a copy of the guest's libibverbs with DF_SYMBOLIC, in
# a directory of its own; flunks unless the loader then binds
# verbs_open_device and verbs_set_ops inside the copy (else the case would
# test Debian's binding twice).
ubuntu_binding_dir() {
  local dir="$VM_LOGDIR/ubuntu-binding" tool bindings
  tool="$VERBSEMU_BIN/soft-roce/symbolic/set_df_symbolic"
  [ -x "$tool" ] || flunk "$tool missing: bazel build //soft-roce/symbolic:set_df_symbolic on the host"
  mkdir -p "$dir"
  "$tool" /usr/lib/x86_64-linux-gnu/libibverbs.so.1 "$dir/libibverbs.so.1" >/dev/null ||
    flunk "set_df_symbolic failed"
  bindings=$(LD_LIBRARY_PATH="$dir" LD_DEBUG=bindings LD_PRELOAD="$(vm_shim)" \
    ibv_devices 2>&1 >/dev/null | grep -E "symbol .(verbs_open_device|verbs_set_ops)'")
  [ "$(echo "$bindings" | grep -c "libibverbs.so.1 \[0\]: normal")" = 2 ] ||
    flunk "the copy does not bind its own calls inside itself: $bindings"
  echo "$dir"
}
# nccl_run TAG LIBDIR [LAUNCHER_FLAGS...] -> the client's t_min (us), or
# nothing when a side failed. No flags: native.
nccl_run() {
  local tag=$1 libdir=$2 port pre=()
  shift 2
  local probe
  probe="$VERBSEMU_HELPERS/nccl_style_pingpong"
  [ $# -gt 0 ] && shim_prefix "$VM_LOGDIR/$tag.report" "$@" && pre=("${PREFIX[@]}")
  port=$(new_port)
  rm -f "$VM_LOGDIR/$tag.report"
  run_pair "$tag" 120 "tcp_listening $port" \
    -- env LD_LIBRARY_PATH="$libdir" "${pre[@]}" "$probe" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -n 1000 \
    -- env LD_LIBRARY_PATH="$libdir" "${pre[@]}" "$probe" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -n 1000 "$SERVER_ADDR" ||
    return 0
  sed -n 's/.* t_min_us \([0-9.]*\) .*/\1/p' "$VM_LOGDIR/$tag.client"
}
# nccl_case LIBDIR NAME: native and shim (+LAT_US on both ends) runs,
# alternating, up to 3 rounds, judged as lat_case judges perftest: the
# shim's report lists both devices with their QP and every WR (the shim
# reached this stack at all), the best t_min shows at least half the added
# latency (this TCG guest's t_min moves by tens of us from run to run), and
# the spin's own wait per post is the target within 2% (spin_own_case).
nccl_case() {
  local libdir=$1 name=$2 attempt nat shim bmin="" emin="" ok=0 rep dev
  [ -x "$VERBSEMU_HELPERS/nccl_style_pingpong" ] || flunk "nccl_style_pingpong missing: bazel build //shim/... on the host"
  for attempt in 1 2 3; do
    nat=$(nccl_run "${name}_native$attempt" "$libdir")
    shim=$(nccl_run "${name}_shim$attempt" "$libdir" --latency "${LAT_US}us")
    if [ -z "$nat" ] || [ -z "$shim" ]; then continue; fi
    bmin=$(min_of "$bmin" "$nat")
    emin=$(min_of "$emin" "$shim")
    rep="$VM_LOGDIR/${name}_shim$attempt.report"
    if awk -v b="$bmin" -v e="$emin" -v l="$LAT_US" 'BEGIN {exit !(e - b >= 0.5 * l)}'; then
      ok=1
      break
    fi
  done
  [ -n "$bmin" ] || flunk "no round completed" "$VM_LOGDIR/${name}_shim3.client" "$VM_LOGDIR/${name}_shim3.server"
  for dev in $SERVER_DEV $CLIENT_DEV; do
    grep -q "^device $dev: qps [1-9][0-9]*, wrs [1-9][0-9]\{3\}" "$rep" ||
      flunk "the report does not list $dev with its QP and WRs" "$rep"
  done
  echo "# $name: t_min native $bmin us, shim $emin us for +$LAT_US us (round $attempt)" >&3
  [ "$ok" = 1 ] || flunk "best t_min $bmin -> $emin us does not show +${LAT_US} us"
  spin_own_case nccl_style "$rep"
}

@test "NCCL-style client, Debian's libibverbs: +${LAT_US} us, device and QPs reported" {
  nccl_case "" nccl_debian
}

@test "NCCL-style client, libibverbs bound as Ubuntu's: +${LAT_US} us, device and QPs reported" {
  local dir
  dir=$(ubuntu_binding_dir) || return 1
  nccl_case "$dir" nccl_ubuntu
}

# The validity check from the kernel. A ping-pong through a libibverbs in a
# link namespace of its own (dlmopen: no preload reaches it) while the
# device is also opened through the usual one: symmetric traffic that port
# counters cannot tell from the shim's. The kernel lists each process's QPs
# with their owner: every process's report must carry the WARNING, and
# verbsemu sweep must refuse every run. The ping-pong lasts a few seconds:
# the shim looks at the kernel's list once a second, and a QP destroyed
# before the first look and before the report can escape (docs/shim.md).
@test "a QP behind the shim, symmetric ping-pong: the kernel check warns and the sweep refuses the runs" {
  local probe port cmd dir out
  probe="$VERBSEMU_HELPERS/nccl_style_pingpong"
  [ -x "$probe" ] || flunk "$probe missing: bazel build //shim/... on the host"
  port=$(new_port)
  cmd="$probe -d $SERVER_DEV -x $SERVER_GID -p $port -n 40000 --hide & \
$probe -d $CLIENT_DEV -x $CLIENT_GID -p $port -n 40000 --hide $SERVER_ADDR; rc=\$?; wait; exit \$rc"
  dir="$VM_LOGDIR/sweep"
  out=$("$VERBSEMU" sweep --latency 0,20us --repeat 2 --no-plot --timeout 120s \
    --metric 'regex:t_min_us ([0-9.]+)' --out "$dir" -- sh -c "$cmd" 2>&1) && flunk "the sweep exited 0: $out"
  echo "$out" >"$VM_LOGDIR/sweep.out"
  # Its pilot run already shows the command is not emulated: no run follows.
  echo "$out" | grep -q "the pilot run was not emulated: .*WARNING: \($SERVER_DEV\|$CLIENT_DEV\): 1 QP of this process that the shim never saw" ||
    flunk "the sweep did not refuse the pilot run for the QP behind the shim" "$VM_LOGDIR/sweep.out"
  [ "$(find "$dir" -path '*/reports/*' -type f -name '*.txt' | wc -l)" = 2 ] || flunk "expected the pilot's 2 reports" "$VM_LOGDIR/sweep.out"
  [ "$(find "$dir" -path '*/reports/*' -type f -name '*.txt.json' | wc -l)" = 2 ] || flunk "expected the pilot's 2 JSON reports" "$VM_LOGDIR/sweep.out"
  local missing
  missing=$(find "$dir" -path '*/reports/*' -type f -name '*.txt' -exec grep -L "^WARNING: \($SERVER_DEV\|$CLIENT_DEV\): 1 QP of this process that the shim never saw" {} +) || true
  [ -z "$missing" ] || flunk "no kernel-check warning in $missing" "$missing"
  missing=$(find "$dir" -path '*/reports/*' -type f -name '*.txt.json' -exec grep -L '"code": "hidden-qps"' {} +) || true
  [ -z "$missing" ] || flunk "no hidden-qps warning in $missing" "$missing"
}

# Another process's RDMA traffic on the same devices (a native ib_write_bw)
# is not this process's: the shim's report stays without a warning, and the
# kernel check says every QP of the shim process was seen.
@test "the kernel check beside another process's RDMA traffic: no warning" {
  local port tag=beside rep
  port=$(new_port)
  ib_write_bw -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -D 30 -s 65536 >"$VM_LOGDIR/bw.server" 2>&1 &
  local spid=$!
  wait_until 60 tcp_listening "$port" || flunk "native ib_write_bw did not listen" "$VM_LOGDIR/bw.server"
  ib_write_bw -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -D 30 -s 65536 "$SERVER_ADDR" >"$VM_LOGDIR/bw.client" 2>&1 &
  local cpid=$!
  sleep 3
  [ -n "$(nccl_run "$tag" "" --latency 5us)" ] || flunk "the shim's ping-pong failed" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
  kill "$cpid" "$spid" 2>/dev/null || true
  wait "$cpid" "$spid" 2>/dev/null || true
  rep="$VM_LOGDIR/$tag.report"
  ! grep -q "^WARNING" "$rep" || flunk "a warning beside another process's traffic" "$rep"
  [ "$(grep -c "^kernel QP check: every QP of this process on an emulated device was seen by the shim" "$rep")" = 2 ] ||
    flunk "no clean kernel check in both reports" "$rep"
}

# Port counters beside the kernel check: the report sets the device's own
# packet counters against what shim processes posted. A shim process holds
# the client's device open (through a privately dlopen'ed libibverbs) while a
# native ib_write_bw of another process moves 64 KiB writes it never sees.
# Pair topology: the client's port sent 16 packets per write and received one
# ACK, so the report counts them as posted by no shim process; single
# topology: one device both sends and receives every packet (loopback),
# which port counters cannot tell from ACKs, so nothing is counted. Either
# way that traffic is another process's: no warning, and the kernel check
# finds every QP of the holder (none) seen.
@test "traffic of another process: the report counts it, and does not warn" {
  local probe tag=bypass rep hpid mbps sent
  probe="$VERBSEMU_HELPERS/dlopen_probe"
  [ -x "$probe" ] || flunk "$probe missing: bazel build //shim/... on the host"
  rep="$VM_LOGDIR/$tag.report"
  rm -f "$rep"
  "$VERBSEMU" run --report "$rep" -- "$probe" "$CLIENT_DEV" --hold >"$VM_LOGDIR/$tag.holder" 2>&1 3>&- &
  hpid=$!
  wait_until 60 grep -q "^opened " "$VM_LOGDIR/$tag.holder" || {
    kill "$hpid" 2>/dev/null
    flunk "the holder did not open $CLIENT_DEV" "$VM_LOGDIR/$tag.holder"
  }
  mbps=$(perf_pair bw "${tag}_native" ib_write_bw 65536 2000 -)
  kill -TERM "$hpid" 2>/dev/null
  wait "$hpid" || flunk "the holder exited $?" "$VM_LOGDIR/$tag.holder"
  [ -n "$mbps" ] || flunk "native ib_write_bw did not complete" "$VM_LOGDIR/${tag}_native.client"
  sent=$(sed -n "s/^device $CLIENT_DEV port 1: the device sent \([0-9]*\) packets.*/\1/p" "$rep")
  [ "${sent:-0}" -ge 32000 ] || flunk "port counters missed the writes: sent '${sent}'" "$rep"
  if [ "$SERVER_DEV" != "$CLIENT_DEV" ]; then
    grep -q "^device $CLIENT_DEV port 1: [0-9]* packets sent that no shim process posted" "$rep" ||
      flunk "the other process's packets are not counted" "$rep"
  fi
  ! grep -q "WARNING" "$VM_LOGDIR/$tag.holder" "$rep" || flunk "another process's traffic raised a warning" "$VM_LOGDIR/$tag.holder" "$rep"
  grep -q "^kernel QP check: every QP of this process on an emulated device was seen by the shim" "$rep" ||
    flunk "no clean kernel check" "$rep"
}

# Shim processes on both ends, every packet theirs: no warning, and the
# shared count covers what the device sent.
@test "traffic the shim posted: the report explains it and does not warn" {
  local tag=no_bypass mbps line
  mbps=$(perf_pair bw "$tag" ib_write_bw 65536 2000 --latency,1us)
  [ -n "$mbps" ] || flunk "ib_write_bw under the shim did not complete" "$VM_LOGDIR/$tag.client"
  line=$(grep "^device $CLIENT_DEV port 1: the device sent" "$VM_LOGDIR/$tag.report" | tail -n 1)
  [ -n "$line" ] || flunk "no device counters in the report" "$VM_LOGDIR/$tag.report"
  ! grep -q "WARNING" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server" ||
    flunk "a false bypass warning" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.report"
  echo "$line"
}

# An unmodified MPI application: LAMMPS on 2 ranks of Open MPI over UCX
# (rc_verbs, ud_verbs for wireup; shared memory off), both from the host's
# root (tests/vm/run boots with --host-root), under the launcher. Each rank
# must report delay injected on its device, and no process may see traffic
# it did not post.
@test "LAMMPS on 2 MPI ranks over UCX under the shim: every rank emulated, no bypass" {
  local root=${VERBSEMU_VM_HOST_ROOT:-} dir="$VM_LOGDIR/mpi" f n=0
  [ -n "$root" ] || flunk "the guest has no host root: boot with soft-roce/vm --host-root (tests/vm/run does)"
  chroot "$root" /bin/sh -c "command -v mpirun && command -v lmp" >/dev/null ||
    flunk "the host has no mpirun or lmp: tools/bootstrap installs openmpi-bin and lammps"
  local forward=(-x LD_PRELOAD -x VERBSEMU_LATENCY -x VERBSEMU_REPORT -x UCX_TLS -x UCX_ASYNC_MODE)
  [ -z "${ASAN_OPTIONS:-}" ] || forward+=(-x ASAN_OPTIONS -x UBSAN_OPTIONS)
  [ -z "${VERBSEMU_LATENCY_MODE:-}" ] || forward+=(-x VERBSEMU_LATENCY_MODE)
  rm -rf "$dir"
  mkdir -p "$dir/reports"
  chroot "$root" /usr/bin/env -C "$PWD" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    UCX_TLS=rc_verbs,ud_verbs:aux,self UCX_ASYNC_MODE=poll \
    "$VERBSEMU" run --latency 20us --report "$dir/reports/%h.%p" -- \
    timeout 300 mpirun -np 2 --bind-to core --mca pml ucx --mca btl self --mca osc ucx \
    "${forward[@]}" tools/internal/rank_device.sh lmp -in tools/internal/lammps_lj.in \
    -var cells 4 -var steps 100 -log none >"$dir/out" 2>&1 ||
    flunk "mpirun under the shim exited $?" "$dir/out"
  grep -q "^Loop time of .* on 2 procs for 100 steps" "$dir/out" || flunk "LAMMPS did not finish" "$dir/out"
  ! grep -q "WARNING" "$dir/out" || flunk "a bypass warning" "$dir/out" "$dir"/reports/*
  for f in "$dir"/reports/*; do
    grep -q "^device .*wrs [1-9].* delay injected [1-9]" "$f" || continue
    n=$((n + 1))
  done
  [ "$n" = 2 ] || flunk "$n of 2 ranks report delay injected" "$dir"/reports/*
  grep -h "^device .*wrs [1-9]" "$dir"/reports/*
}

# verbsemu doctor on rxe: no check finds a problem, and its self-test (an RC
# QP of a privately dlopen'ed libibverbs connected to itself, run again
# under the launcher) shows in the shim's report with its QP and WR.
@test "verbsemu doctor: exit 0, the self-test's QP emulated" {
  local out="$VM_LOGDIR/doctor.out" rc=0
  "$VERBSEMU" doctor --device "$SERVER_DEV" >"$out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || flunk "doctor exited $rc" "$out"
  grep -q "^ok: self-test on $SERVER_DEV: .*: device $SERVER_DEV: qps [1-9][0-9]*, wrs [1-9]" "$out" ||
    flunk "no self-test ok line" "$out"
  grep -q "^info: device $SERVER_DEV: driver rxe, provider rxe" "$out" || flunk "rxe not recognised" "$out"
  [ "$(grep -c "^info: libibverbs \(calls verbs_open_device through its PLT\|binds its own calls inside itself\)" "$out")" = 1 ] ||
    flunk "no libibverbs binding line" "$out"
  ! grep -q "^problem: " "$out" || flunk "a problem line with exit 0" "$out"
  grep "^ok: self-test" "$out"
}

# UCX_TLS naming dc_x (an alias of dc_mlx5, which needs the mlx5 direct
# verbs the shim hides): one problem line saying so, exit 1.
@test "verbsemu doctor with UCX_TLS=dc_x,sm,self: exit 1, dc_x named as the problem" {
  local out="$VM_LOGDIR/doctor.out" rc=0
  UCX_TLS=dc_x,sm,self "$VERBSEMU" doctor --device "$SERVER_DEV" >"$out" 2>&1 || rc=$?
  [ "$rc" = 1 ] || flunk "doctor exited $rc, not 1" "$out"
  grep -qx "problem: UCX_TLS names dc_x: verbsemu hides mlx5 direct verbs, so UCX has no dc_x transport and fails or falls back to another (name rc_verbs,ud_verbs instead)" "$out" ||
    flunk "no line saying why dc_x bypasses" "$out"
  [ "$(grep -c "^problem: " "$out")" = 1 ] || flunk "other problems than UCX_TLS" "$out"
  grep "^problem: " "$out"
}
