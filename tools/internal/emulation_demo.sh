#!/usr/bin/env bash
# Runs inside the Soft-RoCE guest: the README's demo. perftest natively and
# under libverbsemu.so at a few emulated settings, in one table.
# Padding needs the real link rate B_real; rxe's nominal port speed is far
# above what it delivers in a TCG guest, so the demo measures native
# ib_write_bw first and passes it as --link-bandwidth.
set -u
cd "$(dirname "$0")/../.." || exit 1
source tests/vm/lib.sh
verbsemu=bazel-bin/shim/verbsemu
[ -x "$verbsemu" ] || { echo "emulation_demo: $verbsemu missing: bazel build //shim:all on the host" >&2; exit 1; }

port=$(new_port)
run_pair link 120 "tcp_listening $port" \
  -- ib_write_bw -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s 65536 -n 400 \
  -- ib_write_bw -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s 65536 -n 400 "$SERVER_ADDR" ||
  { echo "emulation_demo: native ib_write_bw failed" >&2; exit 1; }
link=$(perftest_row "$VM_LOGDIR/link.client" | awk '{printf "%.0f", $4}')
half=$((link / 2))
# perftest's MB/sec are MiB/s (2^20 bytes).
echo "native ib_write_bw 64 KiB: $link MiB/s, taken as B_real for padding; bandwidth target ${half} MiB/s"
echo
tools/internal/perftest_table.sh \
  "native=" \
  "+2us latency=$verbsemu run --latency 2us" \
  "+10us latency=$verbsemu run --latency 10us" \
  "${half}MiB/s pace=$verbsemu run --bandwidth ${half}MiB/s --bw-mode pace" \
  "${half}MiB/s pad=$verbsemu run --bandwidth ${half}MiB/s --bw-mode pad --link-bandwidth ${link}MiB/s"
