# shellcheck shell=bash
# Device, port and process helpers for programs run inside the Soft-RoCE guest
# (soft-roce/vm). Source it from bash. The in-guest tests are bats files that
# load tests/vm/common.bash (which sources this); tools such as
# tools/accuracy_e2e.sh source it directly. No pass/fail bookkeeping here:
# that is the test framework's job.

VM_LOGDIR=${VM_LOGDIR:-$(mktemp -d /tmp/vmtest.XXXXXX)}
# The port counter lives in a file, so a caller in a subshell (port=$(new_port))
# advances it too, and every suite and case of one boot gets ports of its own
# (tests/vm/guest-run points all suites of a boot at one file). Above the
# ports the device gtests pick for themselves (verbsbench's engine_test: 23000+).
VM_PORT_FILE=${VM_PORT_FILE:-$VM_LOGDIR/next-port}
VM_FIRST_PORT=30000
VM_LAST_PORT=60000

# Server and client ends of the current topology: one device talking to
# itself (single), or rxe0 ↔ rxe1 across the veth pair (pair).
SERVER_DEV=${VERBSEMU_VM_DEV0:-}
SERVER_GID=${VERBSEMU_VM_GID0:-}
SERVER_ADDR=${VERBSEMU_VM_ADDR0:-}
CLIENT_DEV=${VERBSEMU_VM_DEV1:-${VERBSEMU_VM_DEV0:-}}
CLIENT_GID=${VERBSEMU_VM_GID1:-${VERBSEMU_VM_GID0:-}}
TOPOLOGY=${VERBSEMU_VM_TOPOLOGY:-none}
export SERVER_DEV SERVER_GID SERVER_ADDR CLIENT_DEV CLIENT_GID TOPOLOGY

# The programs under test and the test helpers, found in one place.
# tests/vm/run sets VERBSEMU (the launcher under test: the build tree's, the
# ASan build's or an installed package's) and VERBSEMU_BIN (the default
# build's tree: the bazel-bin link moves with a build of another --config).
# VERBSEMU_PREFIX (set for an installed package, e.g. /usr): the package's
# programs come from PREFIX/bin. VERBSEMU_HELPERS: the directory of the
# shim's test programs (dlopen_probe, nccl_style_pingpong, cm_cycles),
# beside the launcher unless an installed launcher has none beside it.
VERBSEMU_BIN=${VERBSEMU_BIN:-$PWD/bazel-bin}
VERBSEMU=${VERBSEMU:-$VERBSEMU_BIN/shim/verbsemu}
VERBSEMU_HELPERS=${VERBSEMU_HELPERS:-$(dirname "$VERBSEMU")}

# vm_program NAME: the path of one of the package's programs under test:
# PREFIX/bin/NAME when VERBSEMU_PREFIX is set, else its place in the build
# tree, from the table of what is installed (tools/internal/install_tree).
vm_program() {
  local name path
  while read -r name path; do
    [ "$name" = "$1" ] || continue
    if [ -n "${VERBSEMU_PREFIX:-}" ]; then
      echo "$VERBSEMU_PREFIX/bin/$name"
    else
      echo "$VERBSEMU_BIN/$path"
    fi
    return 0
  done < <("$(dirname "${BASH_SOURCE[0]}")/../../tools/internal/install_tree" --programs)
  echo "vm_program: '$1' is not a program of the package (tools/internal/install_tree)" >&2
  return 2
}

# vm_shim: the shim the launcher under test preloads, found as the launcher
# finds it: beside it in a build tree, PREFIX/lib/verbsemu/ when installed.
vm_shim() {
  local dir
  dir=$(dirname "$VERBSEMU")
  if [ -f "$dir/libverbsemu.so" ]; then
    readlink -f "$dir/libverbsemu.so"
  else
    readlink -f "$dir/../lib/verbsemu/libverbsemu.so"
  fi
}

# have_rxe: true when an active rxe port exists.
have_rxe() {
  [ -n "$SERVER_DEV" ] && grep -q ACTIVE "/sys/class/infiniband/$SERVER_DEV/ports/1/state" 2>/dev/null
}

# port_in_use PORT: some TCP socket (listening, connected, TIME_WAIT) has it.
port_in_use() {
  netstat -tan 2>/dev/null | awk -v p=":$1\$" '$4 ~ p {found = 1} END {exit !found}'
}

# new_ports COUNT: reserves COUNT consecutive ports that no TCP socket holds
# and prints the first. Callers run one at a time (the suites are
# sequential), so the file needs no lock. new_port: one port.
new_port() { new_ports 1; }
new_ports() {
  local count=$1 next port free
  while :; do
    next=$(cat "$VM_PORT_FILE" 2>/dev/null || true)
    [ -n "$next" ] || next=$VM_FIRST_PORT
    if [ $((next + count)) -gt "$VM_LAST_PORT" ]; then
      echo "new_port: no ports left below $VM_LAST_PORT ($VM_PORT_FILE)" >&2
      return 1
    fi
    echo $((next + count)) >"$VM_PORT_FILE"
    free=1
    for ((port = next; port < next + count; port++)); do
      if port_in_use "$port"; then free=0; fi
    done
    if [ "$free" = 1 ]; then
      echo "$next"
      return 0
    fi
  done
}

# wait_until TIMEOUT_S CMD...: polls CMD every 50 ms.
wait_until() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$deadline" ] && return 1
    sleep 0.05
  done
}
tcp_listening() { netstat -ltn 2>/dev/null | grep -q ":$1 "; }
cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$1\b\|:$1 .*LISTEN"; }

# run_pair NAME TIMEOUT_S READY_CMD -- SERVER_CMD... -- CLIENT_CMD...
# Starts the server, waits until READY_CMD (one string of words, e.g.
# "tcp_listening 20001") succeeds, runs the client; both bounded by TIMEOUT_S.
# Logs: $VM_LOGDIR/NAME.{server,client}, each ending with the end's exit
# status (perftest's own output is buffered: a crash leaves no last words).
# Returns 0 when both ends exit 0.
run_pair() {
  local name=$1 limit=$2 ready=()
  read -r -a ready <<<"$3"
  shift 3
  [ "$1" = "--" ] || { echo "run_pair: missing --" >&2; return 2; }
  shift
  local server=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do server+=("$1"); shift; done
  shift
  local slog="$VM_LOGDIR/$name.server" clog="$VM_LOGDIR/$name.client"
  timeout "$limit" "${server[@]}" >"$slog" 2>&1 &
  local spid=$!
  if ! wait_until "$limit" "${ready[@]}"; then
    echo "server not ready within ${limit}s" >>"$clog"
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    return 1
  fi
  timeout "$limit" "$@" >"$clog" 2>&1
  local crc=$?
  wait "$spid"
  local src=$?
  echo "[run_pair: client exited $crc]" >>"$clog"
  echo "[run_pair: server exited $src]" >>"$slog"
  [ "$crc" = 0 ] && [ "$src" = 0 ]
}

# perftest_row LOG: the numbers under perftest's result header (the first
# line after "#bytes" that starts with a number: perftest may print a warning
# between the two).
perftest_row() { awk '/^ *#bytes/ {h = 1; next} h && /^ *[0-9]/ {print; exit}' "$1"; }

# show_logs LOG...: the last 15 lines of each log that exists, prefixed with
# its name (a failing case's diagnosis).
show_logs() {
  local log
  for log in "$@"; do
    [ -f "$log" ] && sed "s|^|    ${log##*/}: |" "$log" | tail -n 15
  done
  return 0
}

# perftest_oob_failure TAG: true when the pair TAG failed in perftest's
# out-of-band exchange, which perftest on rxe loses now and then (natively
# too: "Couldn't read remote address", or both ends exit 17 without a word).
# Callers give only that failure one new try, on a new port; TAG's logs are
# kept as TAG.try1.*.
perftest_oob_failure() {
  grep -qE "Couldn't read remote address|Unable to read to socket|exited 17\]" \
    "$VM_LOGDIR/$1.client" "$VM_LOGDIR/$1.server" 2>/dev/null || return 1
  mv "$VM_LOGDIR/$1.client" "$VM_LOGDIR/$1.try1.client"
  mv "$VM_LOGDIR/$1.server" "$VM_LOGDIR/$1.try1.server"
}
