# Assertion and process helpers for suites that run inside the Soft-RoCE
# guest (soft-roce/vm). Source it from bash. A suite calls check_* or
# pass/fail/skip for each case and ends with `summary`, whose last line
# ("N passed, M failed, K skipped") tests/vm/guest-run adds up.
set -u

VM_PASSED=0
VM_FAILED=0
VM_SKIPPED=0
VM_LOGDIR=${VM_LOGDIR:-$(mktemp -d /tmp/vmtest.XXXXXX)}
VM_NEXT_PORT=${VM_NEXT_PORT:-20000}

pass() { echo "PASS $1"; VM_PASSED=$((VM_PASSED + 1)); }
fail() {
  echo "FAIL $1: $2"
  VM_FAILED=$((VM_FAILED + 1))
  shift 2
  local log
  for log in "$@"; do
    [ -f "$log" ] && sed "s|^|    ${log##*/}: |" "$log" | tail -n 15
  done
  return 0
}
skip() { echo "SKIP $1: $2"; VM_SKIPPED=$((VM_SKIPPED + 1)); }
summary() { echo "$VM_PASSED passed, $VM_FAILED failed, $VM_SKIPPED skipped"; }

# Server and client ends of the current topology: one device talking to
# itself (single), or rxe0 ↔ rxe1 across the veth pair (pair).
SERVER_DEV=${VERBSEMU_VM_DEV0:-}
SERVER_GID=${VERBSEMU_VM_GID0:-}
SERVER_ADDR=${VERBSEMU_VM_ADDR0:-}
CLIENT_DEV=${VERBSEMU_VM_DEV1:-${VERBSEMU_VM_DEV0:-}}
CLIENT_GID=${VERBSEMU_VM_GID1:-${VERBSEMU_VM_GID0:-}}
TOPOLOGY=${VERBSEMU_VM_TOPOLOGY:-none}

# have_rxe: true when an active rxe port exists; a suite skips otherwise.
have_rxe() {
  [ -n "$SERVER_DEV" ] && grep -q ACTIVE "/sys/class/infiniband/$SERVER_DEV/ports/1/state" 2>/dev/null
}

new_port() {
  VM_NEXT_PORT=$((VM_NEXT_PORT + 1))
  echo "$VM_NEXT_PORT"
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
# Starts the server, waits until READY_CMD succeeds (e.g. "tcp_listening 20001"),
# runs the client; both bounded by TIMEOUT_S. Logs: $VM_LOGDIR/NAME.{server,client}.
# Returns 0 when both ends exit 0.
run_pair() {
  local name=$1 limit=$2 ready=$3
  shift 3
  [ "$1" = "--" ] || { echo "run_pair: missing --" >&2; return 2; }
  shift
  local server=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do server+=("$1"); shift; done
  shift
  local slog="$VM_LOGDIR/$name.server" clog="$VM_LOGDIR/$name.client"
  timeout "$limit" "${server[@]}" >"$slog" 2>&1 &
  local spid=$!
  if ! wait_until "$limit" $ready; then
    echo "server not ready within ${limit}s" >>"$clog"
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    return 1
  fi
  timeout "$limit" "$@" >"$clog" 2>&1
  local crc=$?
  wait "$spid"
  local src=$?
  [ "$crc" = 0 ] && [ "$src" = 0 ]
}

# perftest_row LOG: the numbers under perftest's result header.
perftest_row() { awk '/^ *#bytes/ {getline; print; exit}' "$1"; }
