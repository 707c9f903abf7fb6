#!/usr/bin/env bash
# verbsbench end to end inside the Soft-RoCE guest: every mode (lat, bw, lop)
# with both connection paths (rdma_cm, out-of-band TCP), every output format,
# and the error paths, with assertions on the output. Last line:
# "N passed, M failed, K skipped" (tests/vm/guest-run adds these up).
#   bazel build //verbsbench:verbsbench //verbsbench:json_get
#   soft-roce/vm -- verbsbench/vm_tests.sh
#   tests/vm/run verbsbench/vm_tests.sh          # both topologies
cd "$(dirname "$0")/.." || exit 1
source tests/vm/lib.sh

VB=$PWD/bazel-bin/verbsbench/verbsbench
JG=$PWD/bazel-bin/verbsbench/json_get
VM_NEXT_PORT=21000
ADDR=$SERVER_ADDR

if [ ! -x "$VB" ] || [ ! -x "$JG" ]; then
  fail build "missing $VB or $JG: bazel build //verbsbench:verbsbench //verbsbench:json_get"
  summary
  exit 1
fi
if ! have_rxe; then
  skip verbsbench "no active rxe port (run inside soft-roce/vm)"
  summary
  exit 0
fi

# Device arguments for the out-of-band (TCP) path, per side.
ROOT_DEV=(-d "$SERVER_DEV" -x "$SERVER_GID")
PEER_DEV=(-d "$CLIENT_DEV" -x "$CLIENT_GID")

# vb_run TAG NPEERS MODE ROOT_ARGS... -- PEER_ARGS...
# Root listens on a fresh port (and $ADDR); NPEERS peers connect. Logs in
# $VM_LOGDIR/TAG.{root,root.err,peerN}; JSON in $VM_LOGDIR/TAG.json.
# Returns 0 when every process exits 0.
vb_run() {
  local tag=$1 npeers=$2 mode=$3
  shift 3
  local root_args=() peer_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do root_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  peer_args=("$@")
  # Two ports per run: TCP control and rdma_cm (port + 1).
  VM_NEXT_PORT=$((VM_NEXT_PORT + 2))
  local port=$VM_NEXT_PORT
  timeout 300 "$VB" "$mode" --port "$port" --bind "$ADDR" --timeout 60 \
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
    timeout 300 "$VB" "$mode" "$ADDR" --port "$port" --timeout 60 "${peer_args[@]}" \
      >"$VM_LOGDIR/$tag.peer$i" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  wait "$root_pid" || rc=1
  return $rc
}

logs() { echo "$VM_LOGDIR/$1.root" "$VM_LOGDIR/$1.root.err" "$VM_LOGDIR/$1.peer0"; }
jget() { "$JG" "$VM_LOGDIR/$1.json" "$2" 2>/dev/null; }
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
    [ "$("$JG" "$VM_LOGDIR/$1.json" "$s/histogram" --size)" -gt 0 ] &&
    [ "$("$JG" "$VM_LOGDIR/$1.json" "$s/cycle_min_ns" --size)" -gt 0 ]
}

# ---- lat -------------------------------------------------------------------
lat_case() {  # NAME CM OP INLINE SIZES N_SIZES ITERS [EXTRA...]
  local name=$1 cm=$2 op=$3 inl=$4 sizes=$5 n_sizes=$6 iters=$7
  shift 7
  local tag="lat_${op}_${cm}_${inl}_${sizes/:/-}" root_dev=() peer_dev=()
  [ "$cm" = tcp ] && root_dev=("${ROOT_DEV[@]}") peer_dev=("${PEER_DEV[@]}")
  if ! vb_run "$tag" 1 lat --cm "$cm" "${root_dev[@]}" --op "$op" --inline "$inl" -s "$sizes" \
    -n "$iters" -w 20 --csv "$VM_LOGDIR/$tag.csv" --histogram "$VM_LOGDIR/$tag.hist" "$@" \
    -- --cm "$cm" "${peer_dev[@]}" -q; then
    fail "$name" "run failed" $(logs "$tag")
    return
  fi
  local rows conn
  rows=$(awk '/^ #bytes/ {h = 1; next} h && /^ [0-9]/ {n++} END {print n + 0}' "$VM_LOGDIR/$tag.root")
  conn=$(jget "$tag" /device/connection)
  local expect_conn=$cm
  [ "$cm" = auto ] && expect_conn=rdmacm
  if [ "$rows" != "$n_sizes" ]; then
    fail "$name" "table has $rows rows, expected $n_sizes" $(logs "$tag")
  elif [ "$("$JG" "$VM_LOGDIR/$tag.json" /results --size)" != "$n_sizes" ]; then
    fail "$name" "JSON has $("$JG" "$VM_LOGDIR/$tag.json" /results --size) results" $(logs "$tag")
  elif [ "$conn" != "$expect_conn" ]; then
    fail "$name" "connection '$conn', expected '$expect_conn'" $(logs "$tag")
  elif ! check_stats "$tag" /results/0/stats; then
    fail "$name" "stats out of order or incomplete" "$VM_LOGDIR/$tag.json"
  elif [ "$(wc -l <"$VM_LOGDIR/$tag.csv")" != $((n_sizes + 1)) ]; then
    fail "$name" "CSV has $(wc -l <"$VM_LOGDIR/$tag.csv") lines" "$VM_LOGDIR/$tag.csv"
  elif ! awk '/^# lat/ {b = 1; next} b && NF == 5 {c = $5} /^$/ && b {if (c + 0 < 0.999999) bad = 1; b = 0} END {exit bad}' "$VM_LOGDIR/$tag.hist"; then
    fail "$name" "a histogram's CDF does not reach 1" "$VM_LOGDIR/$tag.hist"
  else
    pass "$name: min $(jget "$tag" /results/0/stats/min_ns | cut -c1-8) ns, p50 $(jget "$tag" /results/0/stats/p50_ns | cut -c1-8) ns ($conn)"
  fi
}

# N_SIZES counts table rows: sizes x inline modes.
lat_case "lat send sweep 1:4K rdma_cm" auto send off 1:4K 13 200
lat_case "lat send inline OOB tcp" tcp send on 64 1 300
lat_case "lat write (poll last byte) rdma_cm" rdmacm write both 8:16 4 200
lat_case "lat write OOB tcp" tcp write off 1:1K 11 200
lat_case "lat read" auto read off 4:64 5 200

# Large messages above the 1024 B MTU (rxe-dev#76 broke ib_write_lat there).
lat_case "lat write 64K (above MTU)" auto write off 64K 1 50

# Duration run: percentiles from the streaming histogram, iterations chosen
# from the duration.
tag=lat_duration
if vb_run "$tag" 1 lat -D 1 -s 8 -- -q; then
  iters=$(jget "$tag" /results/0/iterations)
  if [ -n "$iters" ] && [ "$iters" -gt 10 ] && check_stats "$tag" /results/0/stats; then
    pass "lat -D 1: $iters iterations with p99 $(jget "$tag" /results/0/stats/p99_ns | cut -c1-8) ns"
  else
    fail "lat -D 1" "iterations '$iters' or stats wrong" "$VM_LOGDIR/$tag.json"
  fi
else
  fail "lat -D 1" "run failed" $(logs "$tag")
fi

# Raw samples: one line per sample (plus header).
tag=lat_raw
if vb_run "$tag" 1 lat -n 150 -w 10 -s 32 --raw "$VM_LOGDIR/$tag.raw" -- -q; then
  lines=$(grep -vc '^#' "$VM_LOGDIR/$tag.raw")
  if [ "$lines" = 150 ]; then
    pass "lat --raw: 150 samples written"
  else
    fail "lat --raw" "$lines samples, expected 150" "$VM_LOGDIR/$tag.raw"
  fi
else
  fail "lat --raw" "run failed" $(logs "$tag")
fi

# ---- bw --------------------------------------------------------------------
bw_case() {  # NAME CM OP SIZE ITERS [EXTRA...]
  local name=$1 cm=$2 op=$3 size=$4 iters=$5
  shift 5
  local tag="bw_${op}_${cm}_${size}_$*"
  tag=${tag// /} root_dev=() peer_dev=()
  [ "$cm" = tcp ] && root_dev=("${ROOT_DEV[@]}") peer_dev=("${PEER_DEV[@]}")
  if ! vb_run "$tag" 1 bw --cm "$cm" "${root_dev[@]}" --op "$op" -s "$size" -n "$iters" -w 100 "$@" \
    -- --cm "$cm" "${peer_dev[@]}" -q; then
    fail "$name" "run failed" $(logs "$tag")
    return
  fi
  local bw rate n
  bw=$(jget "$tag" /results/0/bw_MiBps) rate=$(jget "$tag" /results/0/msg_rate_Mpps)
  n=$(jget "$tag" /results/0/iterations)
  if [ -n "$bw" ] && fcmp "$bw" ">" 0 && fcmp "$rate" ">" 0 && [ "$n" = "$iters" ] &&
    awk '/^ #bytes/ {getline; ok = ($5 > 0)} END {exit !ok}' "$VM_LOGDIR/$tag.root"; then
    pass "$name: $(printf '%.1f' "$bw") MiB/s, $(printf '%.4f' "$rate") Mpps"
  else
    fail "$name" "bw '$bw' rate '$rate' iterations '$n'" $(logs "$tag")
  fi
}

bw_case "bw send 64K" auto send 64K 500
bw_case "bw write 4K window 32 post-list 8 (OOB tcp)" tcp write 4K 2000 -t 32 -l 8
bw_case "bw read 16K" auto read 16K 500
bw_case "bw send 1K bidirectional" auto send 1K 2000 -b
bw_case "bw write 8 inline" auto write 8 3000 --inline on

# ---- lop -------------------------------------------------------------------
tag=lop3
if vb_run "$tag" 3 lop -P 3 --yield -n 100 -w 10 --csv "$VM_LOGDIR/$tag.csv" -- -q; then
  missing=""
  for name in rtt2_1n_send_inline rtt2_n1_send_inline rtt2_1n_write_normal rtt2_n1_write_normal \
    os_send_single os_send_list os_write_single_inline or_recv_single or_recv_list \
    L_1n_send_inline Llist_1n_write_normal; do
    grep -q "^$name," "$VM_LOGDIR/$tag.csv" || missing="$missing $name"
  done
  points=$(grep -c '^rtt2_1n_send_inline,' "$VM_LOGDIR/$tag.csv")
  kind=$(jget "$tag" /lop/curves/0/kind)
  p3=$(jget "$tag" /lop/curves/0/points/2/p)
  if [ -n "$missing" ]; then
    fail "lop -P 3" "missing curves:$missing" "$VM_LOGDIR/$tag.csv"
  elif [ "$points" != 3 ] || [ "$kind" != rtt ] || [ "$p3" != 3 ]; then
    fail "lop -P 3" "points $points kind '$kind' p3 '$p3'" "$VM_LOGDIR/$tag.json"
  elif ! check_stats "$tag" /lop/curves/0/points/2/stats; then
    fail "lop -P 3" "point stats incomplete" "$VM_LOGDIR/$tag.json"
  else
    pass "lop -P 3: $(grep -c . "$VM_LOGDIR/$tag.csv") curve points; RTT 1:n send p=1..3 medians $(grep '^rtt2_1n_send_inline,' "$VM_LOGDIR/$tag.csv" | cut -d, -f10 | cut -d. -f1 | tr '\n' ' ')ns"
  fi
else
  fail "lop -P 3" "run failed" $(logs "$tag") "$VM_LOGDIR/$tag.peer1" "$VM_LOGDIR/$tag.peer2"
fi

tag=lop_tcp
if vb_run "$tag" 2 lop -P 2 --yield --cm tcp "${ROOT_DEV[@]}" --op write --inline off -n 50 -w 5 -D 0 \
  -- --cm tcp "${PEER_DEV[@]}" -q; then
  n=$("$JG" "$VM_LOGDIR/$tag.json" /lop/curves --size)
  if [ "$(jget "$tag" /device/connection)" = tcp ] && [ "$n" -ge 6 ]; then
    pass "lop -P 2 write over OOB tcp: $n curves"
  else
    fail "lop -P 2 tcp" "$n curves" "$VM_LOGDIR/$tag.json"
  fi
else
  fail "lop -P 2 tcp" "run failed" $(logs "$tag") "$VM_LOGDIR/$tag.peer1"
fi

# ---- engine unit tests that need a device (skipped on the host) ----------
ET=$PWD/bazel-bin/verbsbench/engine_test
if [ -x "$ET" ]; then
  if timeout 300 "$ET" >"$VM_LOGDIR/engine_test.log" 2>&1 && ! grep -q SKIPPED "$VM_LOGDIR/engine_test.log"; then
    pass "engine_test: $(grep -c '^\[       OK' "$VM_LOGDIR/engine_test.log") loopback tests (OOB tcp on 127.0.0.1)"
  else
    fail "engine_test" "failed or skipped" "$VM_LOGDIR/engine_test.log"
  fi
else
  skip engine_test "not built (bazel build //verbsbench:engine_test)"
fi

# ---- rdma_cm → out-of-band fallback ----------------------------------------
# On 127.0.0.1 the root's rdma_cm listener binds, but the peer's route
# resolution fails (no RDMA device on lo): with --cm auto both fall back to
# the TCP exchange; with --cm rdmacm both fail with one line.
tag=fallback
save_addr=$ADDR
ADDR=127.0.0.1
if vb_run "$tag" 1 lat -x "$SERVER_GID" -n 100 -s 8 -- -x "$SERVER_GID" -q; then
  conn=$(jget "$tag" /device/connection)
  if [ "$conn" = "rdmacm+tcp-fallback" ] && [ "$(jget "$tag" /results/0/stats/count)" = 100 ]; then
    pass "rdma_cm to out-of-band fallback: $conn ($(jget "$tag" /device/cm_fallback_reason))"
  else
    fail "rdma_cm fallback" "connection '$conn'" "$VM_LOGDIR/$tag.json"
  fi
else
  fail "rdma_cm fallback" "run failed" $(logs "$tag")
fi
tag=forced_cm
if vb_run "$tag" 1 lat --cm rdmacm -n 100 -s 8 --; then
  fail "--cm rdmacm without a route" "succeeded" $(logs "$tag")
elif [ "$(grep -c . "$VM_LOGDIR/$tag.peer0")" = 1 ] && grep -q "^verbsbench: rdma_" "$VM_LOGDIR/$tag.peer0"; then
  pass "--cm rdmacm without a route fails: $(cat "$VM_LOGDIR/$tag.peer0")"
else
  fail "--cm rdmacm without a route" "unexpected peer output" "$VM_LOGDIR/$tag.peer0"
fi
ADDR=$save_addr

# ---- errors ----------------------------------------------------------------
err_case() {  # NAME EXPECTED_REGEX ARGS...
  local name=$1 re=$2
  shift 2
  local out rc
  out=$(timeout 60 "$VB" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$(echo "$out" | grep -c .)" = 1 ] && echo "$out" | grep -Eq "$re"; then
    pass "$name: exit $rc, '$out'"
  else
    fail "$name" "exit $rc, stderr '$out'"
  fi
}
err_case "unknown mode" "unknown mode" pong
err_case "bad size" "bad size" lat -s 12Q
err_case "peer not reachable" "not reachable" lat 127.0.0.1 --port 1 --timeout 1
err_case "rdma_cm forced with bad bind" "rdma|bind|cannot" lat --cm rdmacm --bind 203.0.113.7 --port 21999 --timeout 2

summary
