#!/usr/bin/env bash
# The rdma-core tools on rxe: ibv_devinfo sees every port active,
# ibv_rc_pingpong and rping (librdmacm) complete with checked output.
# Runs inside soft-roce/vm (either topology).
source "$(dirname "$0")/lib.sh"

if ! have_rxe; then
  skip rdma-tools "no active rxe port (run inside soft-roce/vm)"
  summary
  exit 0
fi

for dev in $(ls /sys/class/infiniband); do
  out=$(ibv_devinfo -d "$dev" 2>&1)
  if echo "$out" | grep -q "hca_id:[[:space:]]*$dev" && echo "$out" | grep -q "state:[[:space:]]*PORT_ACTIVE"; then
    pass "ibv_devinfo $dev: PORT_ACTIVE, $(echo "$out" | awk '/link_layer/{print $2}') link layer"
  else
    fail "ibv_devinfo $dev" "no PORT_ACTIVE port: $(echo "$out" | head -n 3 | tr '\n' ' ')"
  fi
done

port=$(new_port)
tag="rc_pingpong_$port"
if run_pair "$tag" 60 "tcp_listening $port" \
  -- ibv_rc_pingpong -d "$SERVER_DEV" -g "$SERVER_GID" -p "$port" -n 200 -s 4096 \
  -- ibv_rc_pingpong -d "$CLIENT_DEV" -g "$CLIENT_GID" -p "$port" -n 200 -s 4096 "$SERVER_ADDR"; then
  # It counts both directions: 2 x 200 x 4096 = 1638400 bytes; and "200 iters in X seconds = Z usec/iter"
  if grep -q "^1638400 bytes in" "$VM_LOGDIR/$tag.client" && grep -q "^200 iters in" "$VM_LOGDIR/$tag.client" &&
    grep -q "^200 iters in" "$VM_LOGDIR/$tag.server"; then
    pass "ibv_rc_pingpong [$TOPOLOGY]: $(awk '/iters in/{print $(NF-1), $NF}' "$VM_LOGDIR/$tag.client")"
  else
    fail "ibv_rc_pingpong [$TOPOLOGY]" "missing byte/iteration report" "$VM_LOGDIR/$tag.client"
  fi
else
  fail "ibv_rc_pingpong [$TOPOLOGY]" "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
fi

port=$(new_port)
tag="rping_$port"
count=20
if run_pair "$tag" 60 "cm_listening $port" \
  -- rping -s -a "$SERVER_ADDR" -p "$port" -C "$count" -v \
  -- rping -c -a "$SERVER_ADDR" -p "$port" -C "$count" -v; then
  pings=$(grep -c "^ping data: rdma-ping-" "$VM_LOGDIR/$tag.client")
  if [ "$pings" = "$count" ]; then
    pass "rping [$TOPOLOGY]: $pings pings verified"
  else
    fail "rping [$TOPOLOGY]" "client printed $pings of $count pings" "$VM_LOGDIR/$tag.client"
  fi
else
  fail "rping [$TOPOLOGY]" "did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
fi
summary
