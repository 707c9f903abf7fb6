#!/usr/bin/env bash
# libverbsemu.so's export map, and the preload/launcher behaviour that needs
# no device: exactly the interposed verbs under IBVERBS_1.1, libmlx5's and
# libefa's and librdmacm's entries under their own nodes, the private hooks in the base
# version, nothing of C++; a bad value is one line.
set -u
lib=$1
launcher=$2
probe=$3
passed=0 failed=0
ok() { echo "PASS $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }

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
if [ "$exports" = "$expected" ]; then ok "export map"; else bad "export map: got [$exports]"; fi

if objdump -T "$lib" | awk '$2 == "g" && $4 != "*UND*"' | grep -q " _Z"; then
  bad "C++ symbols exported"
else
  ok "no C++ symbol exported"
fi

out=$(LD_PRELOAD="$(readlink -f "$lib")" VERBSEMU_LATENCY=soon /bin/sh -c 'exit 0' 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "$(echo "$out" | grep -c .)" = 1 ] && echo "$out" | grep -q "VERBSEMU_LATENCY='soon'.*without emulation"; then
  ok "preloaded with a bad value: one line, process runs"
else
  bad "preloaded with a bad value: rc=$rc [$out]"
fi

out=$(LD_PRELOAD="$(readlink -f "$lib")" VERBSEMU_REPORT=stderr VERBSEMU_LATENCY=2us /bin/sh -c 'exit 3' 2>&1)
rc=$?
if [ "$rc" = 3 ] && [ -z "$out" ]; then
  ok "no device opened: silent, exit status kept"
else
  bad "no device opened: rc=$rc [$out]"
fi

out=$("$launcher" run --bandwidth 40 -- /bin/true 2>&1)
rc=$?
if [ "$rc" = 2 ] && [ "$(echo "$out" | grep -c .)" = 1 ] && echo "$out" | grep -q VERBSEMU_BANDWIDTH; then
  ok "launcher: bad value is one line, command not started"
else
  bad "launcher bad value: rc=$rc [$out]"
fi

# shellcheck disable=SC2016 # the inner shell expands them
out=$(VERBSEMU_LIBRARY="$lib" "$launcher" run --latency 1500ns --bw-mode pace -- /bin/sh -c 'echo "$VERBSEMU_LATENCY $VERBSEMU_BW_MODE $FI_EFA_USE_DATA_PATH_DIRECT $LD_PRELOAD"')
if [[ "$out" == "1500ns pace 0 /"*libverbsemu.so* ]]; then
  ok "launcher run sets the environment and an absolute LD_PRELOAD"
else
  bad "launcher run: [$out]"
fi

out=$(VERBSEMU_LIBRARY="$lib" "$launcher" env --format mpirun --latency 2us)
if echo "$out" | grep -q "^-x LD_PRELOAD=/" && echo "$out" | grep -q "^-x VERBSEMU_LATENCY=2us$"; then
  ok "launcher env --format mpirun"
else
  bad "launcher env: [$out]"
fi

# The shim answers libmlx5's gate for an emulated device (libmlx5 would
# not know this fake one): direct verbs off by default.
out=$(LD_PRELOAD="$(readlink -f "$lib")" VERBSEMU_LATENCY=1us "$probe" --fake mlx5_7 2>&1)
if [ "$out" = "mlx5_7 mlx5dv_is_supported=false" ]; then
  ok "mlx5dv_is_supported answers false for an emulated device"
else
  bad "mlx5dv_is_supported under the shim: [$out]"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
