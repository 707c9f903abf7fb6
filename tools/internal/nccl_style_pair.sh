#!/usr/bin/env bash
# One ping-pong of the NCCL-style client inside soft-roce/vm --topology pair
# (server on the first device, client on the second), both ends inheriting
# this environment: under `verbsemu sweep` both get the shim and the
# point's settings, under its --control neither. Prints the client's line
# ("device DEV iters N bytes S t_min_us X t_median_us Y"); exit 1 when the
# pair failed.
#   tools/internal/nccl_style_pair.sh [--iters N] [--app-delay NS]
set -u
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=tests/vm/lib.sh
source tests/vm/lib.sh
iters=5000 delay=0
while [ $# -gt 0 ]; do
  case "$1" in
    --iters) iters=$2; shift 2 ;;
    --app-delay) delay=$2; shift 2 ;;
    *) echo "usage: $0 [--iters N] [--app-delay NS]" >&2; exit 2 ;;
  esac
done
probe=${VERBSEMU_BIN:-bazel-bin}/shim/nccl_style_pingpong
[ -x "$probe" ] || { echo "nccl_style_pair.sh: build //shim:nccl_style_pingpong first" >&2; exit 2; }
[ -n "${SERVER_DEV:-}" ] || { echo "nccl_style_pair.sh: run it inside soft-roce/vm --topology pair" >&2; exit 2; }
port=$(new_port)
"$probe" -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -n "$iters" --app-delay "$delay" \
  >"$VM_LOGDIR/nccl_pair_$$.server" 2>&1 &
pid=$!
wait_until 30 tcp_listening "$port" || { kill "$pid"; echo "nccl_style_pair.sh: the server did not listen" >&2; exit 1; }
out=$("$probe" -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -n "$iters" --app-delay "$delay" "$SERVER_ADDR")
rc=$?
wait "$pid" || rc=1
echo "$out"
[ "$rc" = 0 ] && [[ "$out" == *t_min_us* ]]
