#!/usr/bin/env bash
# soft-roce/vm as a tool: streams the command's stdout and stderr apart,
# returns its exit status, and turns a hang or a guest panic into a clear
# message with the console tail and a non-zero exit. Boots the VM 4 times.
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
passed=0 failed=0
ok() { echo "PASS $1"; passed=$((passed + 1)); }
ko() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

soft-roce/vm -- bash -c 'echo out-line; echo err-line >&2; exit 7' >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 7 ] && ok "exit status passes through" || ko "exit status passes through" "got $rc, want 7"
grep -qx out-line "$tmp/out" && ! grep -q err-line "$tmp/out" && ok "stdout streams apart" ||
  ko "stdout streams apart" "stdout was: $(cat "$tmp/out")"
grep -qx err-line "$tmp/err" && ok "stderr streams apart" || ko "stderr streams apart" "stderr was: $(cat "$tmp/err")"

soft-roce/vm --topology pair -- bash -c \
  'test "$VERBSEMU_VM_DEV0" = rxe0 && test "$VERBSEMU_VM_DEV1" = rxe1 && test -n "$VERBSEMU_VM_GID1" &&
   test "$(cat /sys/class/infiniband/rxe1/ports/1/gid_attrs/types/$VERBSEMU_VM_GID1)" = "RoCE v2" &&
   test "$VERBSEMU_VM_ADDR1" = 10.99.0.2 && test "$VERBSEMU_VM_TOPOLOGY" = pair' >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "pair topology environment" || ko "pair topology environment" "exit $rc: $(tail -n 5 "$tmp/out")"

start=$(date +%s)
soft-roce/vm --timeout 12 -- sleep 300 >"$tmp/out" 2>"$tmp/err"
rc=$?
took=$(($(date +%s) - start))
if [ "$rc" = 124 ] && grep -q "timed out after 12 s" "$tmp/err" && grep -q "guest console" "$tmp/err" && [ "$took" -lt 60 ]; then
  ok "hang ends at the timeout with the console tail (${took} s)"
else
  ko "hang ends at the timeout" "exit $rc after ${took} s: $(head -n 3 "$tmp/err")"
fi

soft-roce/vm -- bash -c 'echo 1 > /proc/sys/kernel/sysrq; echo c > /proc/sysrq-trigger; sleep 60' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 125 ] && grep -q "guest kernel panicked" "$tmp/err" && grep -q "Kernel panic" "$tmp/err"; then
  ok "guest panic is reported with the console tail"
else
  ko "guest panic is reported" "exit $rc: $(head -n 3 "$tmp/err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
