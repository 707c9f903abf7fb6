#!/usr/bin/env bash
# Bad input to soft-roce/vm and rxe-up/rxe-down fails fast with one clear
# line and a non-zero exit, before anything boots.
set -u
root="${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}"
[ -d "$root/verbsemu" ] && root="$root/verbsemu"
vm="$root/soft-roce/vm"
passed=0 failed=0

expect_error() {  # NAME PATTERN CMD...
  local name=$1 pattern=$2
  shift 2
  local out rc
  out=$("$@" 2>&1 </dev/null)
  rc=$?
  local lines
  lines=$(printf '%s\n' "$out" | grep -c .)
  if [ "$rc" != 0 ] && [ "$lines" = 1 ] && printf '%s' "$out" | grep -q -- "$pattern"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name: exit $rc, $lines line(s): $out"
    failed=$((failed + 1))
  fi
}

expect_error "unknown topology" "unknown topology 'ring' (use single or pair)" "$vm" --topology ring -- true
expect_error "unknown accelerator" "unknown accelerator 'xen'" "$vm" --accel xen -- true
expect_error "bad timeout" "whole number of seconds, not 'soon'" "$vm" --timeout soon -- true
expect_error "unknown option" "unknown option '--bogus'" "$vm" --bogus -- true
expect_error "no command" "no command given" "$vm" --topology pair --
expect_error "missing option value" "--topology needs a value" "$vm" --topology

# qemu missing: a PATH with the basic tools but no qemu-system-x86_64.
bin=$(mktemp -d)
for tool in bash env git dirname cat grep mkdir; do
  ln -s "$(command -v "$tool")" "$bin/$tool"
done
expect_error "qemu missing" "qemu-system-x86_64 not found: run tools/bootstrap" env PATH="$bin" "$vm" -- true
rm -rf "$bin"

if [ -w /dev/kvm ] && ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
  expect_error "kvm without vmx/svm" "shows no vmx/svm" "$vm" --accel kvm -- true
fi

expect_error "rxe-up usage" "usage: rxe-up" sh "$root/soft-roce/rxe-up" rxe0
expect_error "rxe-up missing netdev" "network interface 'no-such-if0' does not exist" \
  sh "$root/soft-roce/rxe-up" rxe0 no-such-if0
expect_error "rxe-down missing device" "RDMA device 'no_such_rxe' does not exist" \
  sh "$root/soft-roce/rxe-down" no_such_rxe

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
