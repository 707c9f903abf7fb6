#!/usr/bin/env bash
# One verbsbench lat run on rxe in the test bed (pair topology, rxe0 <->
# rxe1), for the one-way histogram that VERBSEMU_LATENCY=replay:FILE
# replays (emulate/delay_distribution.h):
#   soft-roce/vm --topology pair -- tools/internal/rxe_lat_json.sh OUT.json [ITERS]
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
out=${1:?usage: rxe_lat_json.sh OUT.json [ITERS]}
iters=${2:-100000}
if ! have_rxe || [ "$TOPOLOGY" != pair ]; then
  echo "rxe_lat_json.sh: run it inside soft-roce/vm --topology pair" >&2
  exit 2
fi
vb=$PWD/bazel-bin/verbsbench/verbsbench
[ -x "$vb" ] || { echo "rxe_lat_json.sh: build //verbsbench:verbsbench first" >&2; exit 2; }
port=$(new_ports 2)
timeout 600 "$vb" lat --port "$port" --bind "$SERVER_ADDR" --timeout 120 --cm tcp \
  -d "$SERVER_DEV" -x "$SERVER_GID" -s 64 -n "$iters" -w 100 --json "$out" &
root=$!
wait_until 30 tcp_listening "$port" || { kill "$root"; exit 1; }
timeout 600 "$vb" lat "$SERVER_ADDR" --port "$port" --timeout 120 --cm tcp \
  -d "$CLIENT_DEV" -x "$CLIENT_GID" -q || exit 1
wait "$root"
