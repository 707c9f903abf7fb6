#!/usr/bin/env bats
# libverbsemu.so's export map, and the preload/launcher behaviour that needs
# no device: exactly the interposed verbs under IBVERBS_1.1, libmlx5's and
# libefa's and librdmacm's entries under their own nodes, the private hooks
# in the base version, nothing of C++; a bad value is one line.

load ../bazel/expect_error

setup() {
  lib=$BATS_TEST_DIRNAME/libverbsemu.so
  launcher=$BATS_TEST_DIRNAME/verbsemu
  probe=$BATS_TEST_DIRNAME/mlx5dv_probe
}

@test "the export map: the interposed verbs, each library's nodes, the private hooks in Base" {
  local exports expected
  exports=$(objdump -T "$lib" | awk '$2 == "g" && $4 != "*UND*" && $NF != "IBVERBS_1.1" && $NF !~ /^MLX5_1\.[378]$/ && $NF !~ /^EFA_1\.[01]$/ && $NF != "RDMACM_1.0" && $NF !~ /^_(end|edata|_bss_start)$/ {print $(NF-1), $NF}' | sort)
  expected=$(printf '%s\n' \
    "IBVERBS_1.1 ibv_close_device" "IBVERBS_1.1 ibv_create_ah" "IBVERBS_1.1 ibv_create_cq" \
    "IBVERBS_1.1 ibv_create_qp" "IBVERBS_1.1 ibv_destroy_ah" "IBVERBS_1.1 ibv_destroy_cq" \
    "IBVERBS_1.1 ibv_destroy_qp" "IBVERBS_1.1 ibv_get_cq_event" \
    "IBVERBS_1.1 ibv_modify_qp" "IBVERBS_1.1 ibv_open_device" \
    "Base verbs_open_device" "Base verbs_uninit_context" \
    "Base verbs_set_ops" "Base ibv_cmd_destroy_qp" \
    "MLX5_1.3 mlx5dv_create_qp" "MLX5_1.7 mlx5dv_devx_obj_create" \
    "MLX5_1.8 mlx5dv_is_supported" \
    "EFA_1.0 efadv_create_driver_qp" "EFA_1.1 efadv_create_qp_ex" \
    "RDMACM_1.0 rdma_accept" "RDMACM_1.0 rdma_connect" | sort)
  [ "$exports" = "$expected" ] || { echo "got [$exports]"; return 1; }
}

@test "no C++ symbol is exported" {
  local cxx
  cxx=$(objdump -T "$lib" | awk '$2 == "g" && $4 != "*UND*"' | grep " _Z" || true)
  [ -z "$cxx" ] || { echo "C++ symbols exported: $cxx"; return 1; }
}

@test "preloaded with a bad value: one line, the process runs" {
  local out rc=0
  out=$(LD_PRELOAD="$(readlink -f "$lib")" VERBSEMU_LATENCY=soon /bin/sh -c 'exit 0' 2>&1) || rc=$?
  [ "$rc" = 0 ] && [ "$(echo "$out" | grep -c .)" = 1 ] &&
    echo "$out" | grep -q "VERBSEMU_LATENCY='soon'.*without emulation" ||
    { echo "rc=$rc [$out]"; return 1; }
}

@test "preloaded with no device opened: silent, the exit status kept" {
  local out rc=0
  out=$(LD_PRELOAD="$(readlink -f "$lib")" VERBSEMU_REPORT=stderr VERBSEMU_LATENCY=2us /bin/sh -c 'exit 3' 2>&1) || rc=$?
  [ "$rc" = 3 ] && [ -z "$out" ] || { echo "rc=$rc [$out]"; return 1; }
}

@test "the launcher refuses a bad value in one line, the command not started" {
  expect_error --status 2 VERBSEMU_BANDWIDTH "$launcher" run --bandwidth 40 -- /bin/true
}

@test "verbsemu run sets the environment and an absolute LD_PRELOAD" {
  local out
  # shellcheck disable=SC2016 # the inner shell expands them
  out=$(VERBSEMU_LIBRARY="$lib" "$launcher" run --latency 1500ns --bw-mode pace -- /bin/sh -c 'echo "$VERBSEMU_LATENCY $VERBSEMU_BW_MODE $FI_EFA_USE_DATA_PATH_DIRECT $LD_PRELOAD"')
  [[ "$out" == "1500ns pace 0 /"*libverbsemu.so* ]] || { echo "[$out]"; return 1; }
}

@test "verbsemu env --format mpirun prints -x lines" {
  local out
  out=$(VERBSEMU_LIBRARY="$lib" "$launcher" env --format mpirun --latency 2us)
  echo "$out" | grep -q "^-x LD_PRELOAD=/" || { echo "[$out]"; return 1; }
  echo "$out" | grep -q "^-x VERBSEMU_LATENCY=2us$" || { echo "[$out]"; return 1; }
}

# The shim answers libmlx5's gate for an emulated device (libmlx5 would
# not know this fake one): direct verbs off by default.
@test "mlx5dv_is_supported answers false for an emulated device" {
  local out
  out=$(LD_PRELOAD="$(readlink -f "$lib")" VERBSEMU_LATENCY=1us "$probe" --fake mlx5_7 2>&1)
  [ "$out" = "mlx5_7 mlx5dv_is_supported=false" ] || { echo "[$out]"; return 1; }
}
