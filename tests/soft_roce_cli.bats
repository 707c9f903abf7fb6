#!/usr/bin/env bats
# Bad input to soft-roce/vm and rxe-up/rxe-down fails fast with one clear
# line and a non-zero exit, before anything boots. A Bazel test
# (//tests:soft_roce_cli_test); by hand: bats tests/soft_roce_cli.bats

setup() {
  root=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  vm="$root/soft-roce/vm"
}

load ../bazel/expect_error

@test "unknown topology" { expect_error "unknown topology 'ring' (use single, pair or star:N)" "$vm" --topology ring -- true; }
@test "a star of too many ports" { expect_error "star:N takes 3 to 8 ports, not '9'" "$vm" --topology star:9 -- true; }
@test "a star of too few ports" { expect_error "star:N takes 3 to 8 ports, not '2'" "$vm" --topology star:2 -- true; }
@test "unknown accelerator" { expect_error "unknown accelerator 'xen'" "$vm" --accel xen -- true; }
@test "bad timeout" { expect_error "whole number of seconds, not 'soon'" "$vm" --timeout soon -- true; }
@test "unknown option" { expect_error "unknown option '--bogus'" "$vm" --bogus -- true; }
@test "no command" { expect_error "no command given" "$vm" --topology pair --; }
@test "missing option value" { expect_error "--topology needs a value" "$vm" --topology; }

@test "qemu missing" {
  # A PATH with the basic tools but no qemu-system-x86_64.
  local bin=$BATS_TEST_TMPDIR/bin tool
  mkdir -p "$bin"
  for tool in bash env git dirname cat grep mkdir; do
    ln -s "$(command -v "$tool")" "$bin/$tool"
  done
  expect_error "qemu-system-x86_64 not found: run tools/bootstrap" env PATH="$bin" "$vm" -- true
}

# Where KVM cannot boot the guest, --accel kvm says why in one line.
@test "kvm refused where it cannot work" {
  if ! [ -w /dev/kvm ]; then
    expect_error "/dev/kvm is missing or not writable" "$vm" --accel kvm -- true
  elif ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
    expect_error "shows no vmx/svm" "$vm" --accel kvm -- true
  else
    skip "this machine has a usable KVM (vmx/svm and /dev/kvm): nothing to refuse"
  fi
}

@test "rxe-up usage" { expect_error "usage: rxe-up" sh "$root/soft-roce/rxe-up" rxe0; }
@test "rxe-up missing netdev" {
  expect_error "network interface 'no-such-if0' does not exist" sh "$root/soft-roce/rxe-up" rxe0 no-such-if0
}
@test "rxe-down missing device" {
  expect_error "RDMA device 'no_such_rxe' does not exist" sh "$root/soft-roce/rxe-down" no_such_rxe
}
