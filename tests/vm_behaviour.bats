#!/usr/bin/env bats
# soft-roce/vm as a tool: streams the command's stdout and stderr apart,
# returns its exit status, and turns a hang or a guest panic into a clear
# message with the console tail and a non-zero exit. Boots the VM 4 times;
# run on the host (tools/test does): bats tests/vm_behaviour.bats

setup() {
  cd "$BATS_TEST_DIRNAME/.." || return 1
  out=$BATS_TEST_TMPDIR/out err=$BATS_TEST_TMPDIR/err
}

@test "exit status, stdout and stderr pass through apart" {
  local rc=0
  soft-roce/vm -- bash -c 'echo out-line; echo err-line >&2; exit 7' >"$out" 2>"$err" || rc=$?
  [ "$rc" = 7 ] || { echo "exit status: got $rc, want 7"; return 1; }
  if ! grep -qx out-line "$out" || grep -q err-line "$out"; then
    echo "stdout was: $(cat "$out")"
    return 1
  fi
  grep -qx err-line "$err" || { echo "stderr was: $(cat "$err")"; return 1; }
}

@test "pair topology environment" {
  local rc=0
  # shellcheck disable=SC2016 # expanded by the guest's shell
  soft-roce/vm --topology pair -- bash -c \
    'test "$VERBSEMU_VM_DEV0" = rxe0 && test "$VERBSEMU_VM_DEV1" = rxe1 && test -n "$VERBSEMU_VM_GID1" &&
     test "$(cat /sys/class/infiniband/rxe1/ports/1/gid_attrs/types/$VERBSEMU_VM_GID1)" = "RoCE v2" &&
     test "$VERBSEMU_VM_ADDR1" = 10.99.0.2 && test "$VERBSEMU_VM_TOPOLOGY" = pair' >"$out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || { echo "exit $rc: $(tail -n 5 "$out")"; return 1; }
}

@test "--root refuses a directory that is not a root file system" {
  local rc=0
  soft-roce/vm --root "$BATS_TEST_TMPDIR" -- true >"$out" 2>&1 || rc=$?
  [ "$rc" != 0 ] || { echo "exit 0 for a root without /bin/sh"; return 1; }
  grep -q -- "--root $BATS_TEST_TMPDIR: no /bin/sh there" "$out" ||
    { echo "said: $(cat "$out")"; return 1; }
}

@test "a hang ends at the timeout with the console tail" {
  local rc=0 start took
  start=$(date +%s)
  soft-roce/vm --timeout 12 -- sleep 300 >"$out" 2>"$err" || rc=$?
  took=$(($(date +%s) - start))
  if [ "$rc" != 124 ] || ! grep -q "timed out after 12 s" "$err" || ! grep -q "guest console" "$err" ||
    ! [ "$took" -lt 60 ]; then
    echo "exit $rc after ${took} s: $(head -n 3 "$err")"
    return 1
  fi
}

@test "a guest panic is reported with the console tail" {
  local rc=0
  soft-roce/vm -- bash -c 'echo 1 > /proc/sys/kernel/sysrq; echo c > /proc/sysrq-trigger; sleep 60' \
    >"$out" 2>"$err" || rc=$?
  if [ "$rc" != 125 ] || ! grep -q "guest kernel panicked" "$err" || ! grep -q "Kernel panic" "$err"; then
    echo "exit $rc: $(head -n 3 "$err")"
    return 1
  fi
}
