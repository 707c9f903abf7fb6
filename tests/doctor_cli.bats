#!/usr/bin/env bats
# `verbsemu doctor` as a user runs it, on this machine: its libibverbs (the
# real file, and a copy made DF_SYMBOLIC by set_df_symbolic, bound as
# Ubuntu's is), the environment check, bad arguments, and the self-test
# child on a device that is not there. The self-test itself needs an RDMA
# device: shim/vm_stacks_tests.bats runs it on rxe.

setup() {
  verbsemu=$(readlink -f "$BATS_TEST_DIRNAME/../shim/verbsemu")
  tool="$BATS_TEST_DIRNAME/../soft-roce/symbolic/set_df_symbolic"
  lib=/usr/lib/x86_64-linux-gnu/libibverbs.so.1
  [ -f "$lib" ] || skip "no $lib (tools/bootstrap installs libibverbs)"
  # Settings of the caller's own must not change the verdicts below.
  unset UCX_TLS FI_EFA_USE_DATA_PATH_DIRECT NVSHMEM_IB_ENABLE_IBGDA NCCL_GIN_TYPE
  unset VERBSEMU_SHM_DIR VERBSEMU_LATENCY VERBSEMU_BANDWIDTH LD_LIBRARY_PATH
}

@test "this machine's libibverbs calls verbs_open_device through its PLT" {
  run "$verbsemu" doctor --no-self-test
  real=$(readlink -f "$lib")
  [[ "$output" == *"info: libibverbs: $real, rdma-core "[0-9]* ]]
  echo "$output" | grep -qx "info: libibverbs calls verbs_open_device through its PLT: contexts are caught at verbs_open_device and at the provider's verbs_set_ops"
  echo "$output" | grep -qx "info: self-test skipped (--no-self-test)"
  echo "$output" | grep -q "^ok: shared memory /dev/shm: writable, [0-9]* MiB free$"
  # Every line is one finding.
  [ "$(echo "$output" | grep -c "^\(ok\|info\|problem\): ")" = "${#lines[@]}" ]
}

@test "a DF_SYMBOLIC copy binds its own calls inside itself" {
  "$tool" "$lib" "$BATS_TEST_TMPDIR/libibverbs.so.1" >/dev/null
  LD_LIBRARY_PATH="$BATS_TEST_TMPDIR" run "$verbsemu" doctor --no-self-test
  echo "$output" | grep -qx "info: libibverbs: $BATS_TEST_TMPDIR/libibverbs.so.1, rdma-core release unknown (the file name has no libibverbs.so.1.ABI.RELEASE.0 version)"
  echo "$output" | grep -qx "info: libibverbs binds its own calls inside itself: contexts opened through a private handle (NCCL) are caught at the provider's verbs_set_ops only"
}

@test "without an RDMA device: a problem line each for the devices and the self-test, exit 1" {
  [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband)" ] || skip "this machine has RDMA devices"
  run "$verbsemu" doctor
  [ "$status" = 1 ]
  echo "$output" | grep -qx "problem: no RDMA device in /sys/class/infiniband: nothing to emulate here (is the driver loaded?)"
  echo "$output" | grep -qx "problem: no RDMA device: nothing to test"
  [ "$(echo "$output" | grep -c "^problem: ")" = 2 ]
}

@test "UCX_TLS=dc_x,sm,self: a problem line saying why, exit 1" {
  UCX_TLS=dc_x,sm,self run "$verbsemu" doctor --no-self-test
  [ "$status" = 1 ]
  echo "$output" | grep -qx "problem: UCX_TLS names dc_x: verbsemu hides mlx5 direct verbs, so UCX has no dc_x transport and fails or falls back to another (name rc_verbs,ud_verbs instead)"
}

@test "a bad VERBSEMU_* value in the environment is a problem line" {
  VERBSEMU_LATENCY=2parsecs run "$verbsemu" doctor --no-self-test
  [ "$status" = 1 ]
  [ "$(echo "$output" | grep -c "^problem: .*VERBSEMU_LATENCY")" = 1 ]
}

@test "bad arguments: one line, exit 2" {
  run "$verbsemu" doctor --fast
  [ "$status" = 2 ]
  [ "${#lines[@]}" = 1 ]
  [ "$output" = "verbsemu doctor: unrecognised option '--fast' (usage: verbsemu doctor [--device NAME] [--no-self-test])" ]
  run "$verbsemu" doctor --device
  [ "$status" = 2 ]
  [ "${#lines[@]}" = 1 ]
}

@test "the launcher's usage names doctor" {
  run "$verbsemu" --help
  [ "$status" = 0 ]
  [[ "$output" == *"verbsemu doctor [--device NAME] [--no-self-test]"* ]]
}

@test "the self-test child, through the launcher, on a device that is not there: one line, exit 1" {
  run "$verbsemu" run --report "$BATS_TEST_TMPDIR/report" --latency 1us --devices nosuch0 -- \
    "$verbsemu" doctor --self-test-child nosuch0
  [ "$status" = 1 ]
  [ "$output" = "verbsemu doctor: self-test child: cannot open nosuch0" ]
}
