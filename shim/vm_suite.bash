# shellcheck shell=bash
# The common start of the shim's in-guest suites (vm_tests.bats,
# vm_stacks_tests.bats), loaded after tests/vm/common: the helpers, the
# latency the cases add, and each case's setup.
# shellcheck source=shim/vm_lib.sh
source "$BATS_TEST_DIRNAME/vm_lib.sh"
# shellcheck disable=SC2034 # used by the suites
LAT_US=${VM_SHIM_LATENCY_US:-100} # large against rxe's 12-70 us noise

setup() {
  vm_setup
  shim_ready || flunk "$VERBSEMU or libverbsemu.so missing: bazel build //shim:libverbsemu.so //shim:verbsemu on the host"
}
