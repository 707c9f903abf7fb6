# shellcheck shell=bash
# Helpers of verbsbench's in-guest suites (vm_tests.bats, vm_models_tests.bats):
# the binaries, each case's setup, a root and its peers run together, and the
# JSON and statistics checks. Source after tests/vm/common and
# shim/vm_lib.sh.
# The suites that source this file use LOGGPFIT, ROOT_DEV and PEER_DEV.
# shellcheck disable=SC2034

# The programs under test (tests/vm/lib.sh) and json_get, a test helper.
VB=$(vm_program verbsbench)
JG=$VERBSEMU_BIN/verbsbench/json_get
LOGGPFIT=$(vm_program loggpfit)
ADDR=$SERVER_ADDR
VB_PREFIX=()
VB_ROOT_PREFIX=()

setup() {
  vm_setup
  if [ ! -x "$VB" ] || [ ! -x "$JG" ]; then
    flunk "missing $VB or $JG: bazel build //verbsbench:verbsbench //verbsbench:json_get"
  fi
  # Device arguments for the out-of-band (TCP) path, per side.
  ROOT_DEV=(-d "$SERVER_DEV" -x "$SERVER_GID")
  PEER_DEV=(-d "$CLIENT_DEV" -x "$CLIENT_GID")
}

# vb_run TAG NPEERS MODE ROOT_ARGS... -- PEER_ARGS...
# Root listens on fresh ports (TCP control and rdma_cm, port + 1) and $ADDR;
# NPEERS peers connect. Every process runs under the words of VB_PREFIX
# first, when set (the shim's launcher); the root also under
# VB_ROOT_PREFIX's. Logs in $VM_LOGDIR/TAG.{root,root.err,peerN}; JSON in
# $VM_LOGDIR/TAG.json. Returns 0 when every process exits 0.
vb_run() {
  local tag=$1 npeers=$2 mode=$3
  shift 3
  local root_args=() peer_args=() port
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do root_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  peer_args=("$@")
  port=$(new_ports 2)
  timeout 300 "${VB_ROOT_PREFIX[@]}" "${VB_PREFIX[@]}" "$VB" "$mode" --port "$port" --bind "$ADDR" --timeout 60 \
    --json "$VM_LOGDIR/$tag.json" "${root_args[@]}" \
    >"$VM_LOGDIR/$tag.root" 2>"$VM_LOGDIR/$tag.root.err" &
  local root_pid=$!
  if ! wait_until 30 tcp_listening "$port"; then
    echo "root did not listen on $port" >>"$VM_LOGDIR/$tag.root.err"
    kill "$root_pid" 2>/dev/null
    wait "$root_pid" 2>/dev/null
    return 1
  fi
  local pids=() i rc=0
  for ((i = 0; i < npeers; i++)); do
    timeout 300 "${VB_PREFIX[@]}" "$VB" "$mode" "$ADDR" --port "$port" --timeout 60 "${peer_args[@]}" \
      >"$VM_LOGDIR/$tag.peer$i" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  wait "$root_pid" || rc=1
  return $rc
}

# flunk_run TAG MESSAGE [LOG...]: fails with the root's and first peer's logs.
flunk_run() {
  local tag=$1 message=$2
  shift 2
  flunk "$message" "$VM_LOGDIR/$tag.root" "$VM_LOGDIR/$tag.root.err" "$VM_LOGDIR/$tag.peer0" "$@"
}
# jget TAG POINTER / jsize TAG POINTER: a value / an array's size from
# TAG.json; empty when missing (the checks then fail with their message).
jget() { "$JG" "$VM_LOGDIR/$1.json" "$2" 2>/dev/null || true; }
jsize() { "$JG" "$VM_LOGDIR/$1.json" "$2" --size 2>/dev/null || true; }
# fcmp A OP B: floating-point comparison with awk.
fcmp() { awk -v a="$1" -v b="$3" "BEGIN {exit !(a $2 b)}"; }

# check_stats TAG POINTER: the stats object at POINTER is ordered and complete.
check_stats() {
  local s=$2 min p50 p99 max count
  min=$(jget "$1" "$s/min_ns") p50=$(jget "$1" "$s/p50_ns") p99=$(jget "$1" "$s/p99_ns")
  max=$(jget "$1" "$s/max_ns") count=$(jget "$1" "$s/count")
  [ -n "$min" ] && [ -n "$max" ] && fcmp "$min" ">" 0 && fcmp "$min" "<=" "$p50" &&
    fcmp "$p50" "<=" "$p99" && fcmp "$p99" "<=" "$max" && fcmp "$count" ">" 0 &&
    [ -n "$(jget "$1" "$s/p999_ns")" ] && [ -n "$(jget "$1" "$s/kurtosis")" ] &&
    [ "$(jsize "$1" "$s/histogram")" -gt 0 ] && [ "$(jsize "$1" "$s/cycle_min_ns")" -gt 0 ]
}
