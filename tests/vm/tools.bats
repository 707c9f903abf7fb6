#!/usr/bin/env bats
# The rdma-core tools on rxe: ibv_devinfo sees every port active,
# ibv_rc_pingpong and rping (librdmacm) complete with checked output.
# Runs inside soft-roce/vm (either topology): tests/vm/run tests/vm/tools.bats

load common

@test "ibv_devinfo: every device has a PORT_ACTIVE port" {
  local dev out devices=0
  for dev in /sys/class/infiniband/*; do
    dev=${dev##*/}
    devices=$((devices + 1))
    out=$(ibv_devinfo -d "$dev" 2>&1) || true
    if ! echo "$out" | grep -q "hca_id:[[:space:]]*$dev" || ! echo "$out" | grep -q "state:[[:space:]]*PORT_ACTIVE"; then
      flunk "ibv_devinfo $dev: no PORT_ACTIVE port: $(echo "$out" | head -n 3 | tr '\n' ' ')"
    fi
    echo "ibv_devinfo $dev: PORT_ACTIVE, $(echo "$out" | awk '/link_layer/{print $2}') link layer"
  done
  [ "$devices" -gt 0 ] || flunk "no device under /sys/class/infiniband"
}

@test "ibv_rc_pingpong: every byte and iteration on both ends" {
  local port tag=rc_pingpong
  port=$(new_port)
  run_pair "$tag" 60 "tcp_listening $port" \
    -- ibv_rc_pingpong -d "$SERVER_DEV" -g "$SERVER_GID" -p "$port" -n 200 -s 4096 \
    -- ibv_rc_pingpong -d "$CLIENT_DEV" -g "$CLIENT_GID" -p "$port" -n 200 -s 4096 "$SERVER_ADDR" ||
    flunk "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
  # It counts both directions: 2 x 200 x 4096 = 1638400 bytes; and "200 iters in X seconds = Z usec/iter"
  if ! grep -q "^1638400 bytes in" "$VM_LOGDIR/$tag.client" || ! grep -q "^200 iters in" "$VM_LOGDIR/$tag.client" ||
    ! grep -q "^200 iters in" "$VM_LOGDIR/$tag.server"; then
    flunk "missing byte/iteration report" "$VM_LOGDIR/$tag.client" "$VM_LOGDIR/$tag.server"
  fi
  echo "ibv_rc_pingpong: $(awk '/iters in/{print $(NF-1), $NF}' "$VM_LOGDIR/$tag.client")"
}

@test "rping: every ping verified" {
  local port tag=rping count=20 pings
  port=$(new_port)
  run_pair "$tag" 60 "cm_listening $port" \
    -- rping -s -a "$SERVER_ADDR" -p "$port" -C "$count" -v \
    -- rping -c -a "$SERVER_ADDR" -p "$port" -C "$count" -v ||
    flunk "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
  pings=$(grep -c "^ping data: rdma-ping-" "$VM_LOGDIR/$tag.client" || true)
  [ "$pings" = "$count" ] || flunk "client printed $pings of $count pings" "$VM_LOGDIR/$tag.client"
}
