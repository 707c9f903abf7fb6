#!/usr/bin/env bats
# verbsbench end to end inside the Soft-RoCE guest: lat and bw with both
# connection paths (rdma_cm, out-of-band TCP), every output format, compare,
# the ranks' records under TCP and mpirun, and the error paths, with
# assertions on the output (the model modes: vm_models_tests.bats).
#   bazel build //verbsbench:verbsbench //verbsbench:json_get
#   tests/vm/run verbsbench/vm_tests.bats          # both topologies
#   soft-roce/vm -- bats verbsbench/vm_tests.bats  # one
# The engine's device tests are a GoogleTest binary of their own
# (//verbsbench:engine_test, tagged requires-rxe), run by tests/vm/run.
# Cases tagged topology-independent check the benchmark's protocol, figures
# and error lines, which one device or two do not change: tests/vm/run runs
# them in the pair boot only (tests/vm/guest-run). The single boot keeps one
# case per connection path.

load ../tests/vm/common
# shellcheck source=shim/vm_lib.sh
source "$BATS_TEST_DIRNAME/../shim/vm_lib.sh"
# shellcheck source=verbsbench/vm_lib.sh
source "$BATS_TEST_DIRNAME/vm_lib.sh"

# ---- lat -------------------------------------------------------------------
lat_case() { # CM OP INLINE SIZES N_SIZES ITERS [EXTRA...]
  local cm=$1 op=$2 inl=$3 sizes=$4 n_sizes=$5 iters=$6
  shift 6
  local tag="lat_${op}_${cm}_${inl}_${sizes/:/-}" root_dev=() peer_dev=()
  if [ "$cm" = tcp ]; then root_dev=("${ROOT_DEV[@]}") peer_dev=("${PEER_DEV[@]}"); fi
  vb_run "$tag" 1 lat --cm "$cm" "${root_dev[@]}" --op "$op" --inline "$inl" -s "$sizes" \
    -n "$iters" -w 20 --csv "$VM_LOGDIR/$tag.csv" --histogram "$VM_LOGDIR/$tag.hist" "$@" \
    -- --cm "$cm" "${peer_dev[@]}" -q || flunk_run "$tag" "run failed"
  local rows conn results expect_conn=$cm
  rows=$(awk '/^ #bytes/ {h = 1; next} h && /^ [0-9]/ {n++} END {print n + 0}' "$VM_LOGDIR/$tag.root")
  conn=$(jget "$tag" /device/connection)
  results=$(jsize "$tag" /results)
  if [ "$cm" = auto ]; then expect_conn=rdmacm; fi
  [ "$rows" = "$n_sizes" ] || flunk_run "$tag" "table has $rows rows, expected $n_sizes"
  [ "$results" = "$n_sizes" ] || flunk_run "$tag" "JSON has $results results"
  [ "$conn" = "$expect_conn" ] || flunk_run "$tag" "connection '$conn', expected '$expect_conn'"
  check_stats "$tag" /results/0/stats || flunk "stats out of order or incomplete" "$VM_LOGDIR/$tag.json"
  [ "$(wc -l <"$VM_LOGDIR/$tag.csv")" = $((n_sizes + 1)) ] ||
    flunk "CSV has $(wc -l <"$VM_LOGDIR/$tag.csv") lines" "$VM_LOGDIR/$tag.csv"
  awk '/^# lat/ {b = 1; next} b && NF == 5 {c = $5} /^$/ && b {if (c + 0 < 0.999999) bad = 1; b = 0} END {exit bad}' \
    "$VM_LOGDIR/$tag.hist" || flunk "a histogram's CDF does not reach 1" "$VM_LOGDIR/$tag.hist"
  echo "min $(jget "$tag" /results/0/stats/min_ns | cut -c1-8) ns, p50 $(jget "$tag" /results/0/stats/p50_ns | cut -c1-8) ns ($conn)"
}

# N_SIZES counts table rows: sizes x inline modes.
@test "lat send sweep 1:4K rdma_cm" { lat_case auto send off 1:4K 13 200; }
# bats test_tags=topology-independent
@test "lat send inline OOB tcp" { lat_case tcp send on 64 1 300; }
# bats test_tags=topology-independent
@test "lat write (poll last byte) rdma_cm" { lat_case rdmacm write both 8:16 4 200; }
# bats test_tags=topology-independent
@test "lat write OOB tcp" { lat_case tcp write off 1:1K 11 200; }
# bats test_tags=topology-independent
@test "lat read" { lat_case auto read off 4:64 5 200; }
# Large messages above the 1024 B MTU (rxe-dev#76 broke ib_write_lat there).
# bats test_tags=topology-independent
@test "lat write 64K (above MTU)" { lat_case auto write off 64K 1 50; }

# Duration run: percentiles from the streaming histogram, iterations chosen
# from the duration.
# bats test_tags=topology-independent
@test "lat -D 1" {
  local tag=lat_duration iters
  vb_run "$tag" 1 lat -D 1 -s 8 -- -q || flunk_run "$tag" "run failed"
  iters=$(jget "$tag" /results/0/iterations)
  if [ -z "$iters" ] || ! [ "$iters" -gt 10 ] || ! check_stats "$tag" /results/0/stats; then
    flunk "iterations '$iters' or stats wrong" "$VM_LOGDIR/$tag.json"
  fi
  echo "$iters iterations with p99 $(jget "$tag" /results/0/stats/p99_ns | cut -c1-8) ns"
}

# Raw samples: one line per sample (plus header).
# bats test_tags=topology-independent
@test "lat --raw" {
  local tag=lat_raw lines
  vb_run "$tag" 1 lat -n 150 -w 10 -s 32 --raw "$VM_LOGDIR/$tag.raw" -- -q || flunk_run "$tag" "run failed"
  lines=$(grep -vc '^#' "$VM_LOGDIR/$tag.raw" || true)
  [ "$lines" = 150 ] || flunk "$lines samples, expected 150" "$VM_LOGDIR/$tag.raw"
}

# ---- bw --------------------------------------------------------------------
bw_case() { # CM OP SIZE ITERS [EXTRA...]
  local cm=$1 op=$2 size=$3 iters=$4
  shift 4
  local tag="bw_${op}_${cm}_${size}_$*" root_dev=() peer_dev=()
  tag=${tag// /}
  if [ "$cm" = tcp ]; then root_dev=("${ROOT_DEV[@]}") peer_dev=("${PEER_DEV[@]}"); fi
  vb_run "$tag" 1 bw --cm "$cm" "${root_dev[@]}" --op "$op" -s "$size" -n "$iters" -w 100 "$@" \
    -- --cm "$cm" "${peer_dev[@]}" -q || flunk_run "$tag" "run failed"
  local bw rate n
  bw=$(jget "$tag" /results/0/bw_MiBps) rate=$(jget "$tag" /results/0/msg_rate_Mpps)
  n=$(jget "$tag" /results/0/iterations)
  if [ -z "$bw" ] || ! fcmp "$bw" ">" 0 || ! fcmp "$rate" ">" 0 || [ "$n" != "$iters" ] ||
    ! awk '/^ #bytes/ {getline; ok = ($5 > 0)} END {exit !ok}' "$VM_LOGDIR/$tag.root"; then
    flunk_run "$tag" "bw '$bw' rate '$rate' iterations '$n'"
  fi
  echo "$(printf '%.1f' "$bw") MiB/s, $(printf '%.4f' "$rate") Mpps"
}

# bats test_tags=topology-independent
@test "bw send 64K" { bw_case auto send 64K 500; }
# bats test_tags=topology-independent
@test "bw write 4K window 32 post-list 8 (OOB tcp)" { bw_case tcp write 4K 2000 -t 32 -l 8; }
# bats test_tags=topology-independent
@test "bw read 16K" { bw_case auto read 16K 500; }
@test "bw send 1K bidirectional" { bw_case auto send 1K 2000 -b; }
# bats test_tags=topology-independent
@test "bw write 8 inline" { bw_case auto write 8 3000 --inline on; }

# ---- compare: the regression gate ------------------------------------------
# Two native runs and one with both ends under the shim at +50 us one way
# (RTT/2 +50 us), interleaved: native, shim, native, 10,000 rounds of 8 B
# each. The natives must pass --max-median-ratio 1.5 (exit 0) and the shim
# run must fail 1.1 (exit 1). The limits, from the test bed
# (tools/compare_noise.sh; docs/verbsbench.md, "Comparing two runs"): in one
# boot per topology, the medians of 10,000-round native runs were 11.9-15.8
# us, 1.32x apart at most (at 1,000 rounds a run can sit in a slower mode
# for most of its rounds: a median of 20.4 us was seen). +50 us keeps the
# shim run above 1.1x on a busy host too: with the host's 2 cores at load
# average 9-11, a +10 us run stayed within 1.1x of its native.
# A run whose median is over 3x its minimum had most of its rounds wait out
# the guest's timer ticks (medians of 1.7-3.6 ms, 2 of the 48 runs of
# tools/compare_noise.sh's table; docs/soft-roce.md): the test bed's state,
# not the path measured, so that run is made again, up to 5 times. Then
# both runs again at 1,000 rounds with every sample kept: their distances
# from the raw samples.

# clean_lat TAG ROUNDS ROOT_ARGS...: an 8 B lat run whose median is within
# 3x its minimum; 1: none in 5 tries, 2: a run failed.
clean_lat() {
  local tag=$1 rounds=$2 try p50 min
  shift 2
  for try in 1 2 3 4 5; do
    vb_run "$tag" 1 lat -s 8 -n "$rounds" -w 100 "$@" -- -q || { flunk_run "$tag" "run failed"; return 2; }
    p50=$(jget "$tag" /results/0/stats/p50_ns) min=$(jget "$tag" /results/0/stats/min_ns)
    if awk -v p="$p50" -v m="$min" 'BEGIN {exit !(p > 0 && p < 3 * m)}'; then
      echo "$tag: median $p50 ns, minimum $min ns (try $try)"
      return 0
    fi
    echo "$tag: median $p50 ns over 3x the minimum $min ns (timer ticks), try $try"
  done
  return 1
}

# compare_runs NAME WANT_EXIT BASE NEW ARGS...: `verbsbench compare` of two
# runs of this case exits WANT_EXIT; its output in NAME.{out,err}.
compare_runs() {
  local name=$1 want=$2 base=$3 new=$4 rc=0
  shift 4
  "$VB" compare "$VM_LOGDIR/$base.json" "$VM_LOGDIR/$new.json" "$@" \
    >"$VM_LOGDIR/$name.out" 2>"$VM_LOGDIR/$name.err" || rc=$?
  cat "$VM_LOGDIR/$name.out" "$VM_LOGDIR/$name.err"
  [ "$rc" = "$want" ] || flunk "compare $base $new $* exited $rc, expected $want"
}

# compare_rc BASE NEW ARGS...: the exit status of `verbsbench compare`.
compare_rc() {
  local base=$1 new=$2 rc=0
  shift 2
  "$VB" compare "$VM_LOGDIR/$base.json" "$VM_LOGDIR/$new.json" "$@" >/dev/null 2>&1 || rc=$?
  echo "$rc"
}

# The interleaved triple is made again (up to 3 times) while the gate's two
# verdicts are not both as expected, each retry named in the output: a host
# whose load changes between runs moves medians by more than 1.5x (the test
# bed's state); a compare or a shim that is wrong fails every triple.
# bats test_tags=topology-independent
@test "compare: two native lat runs pass --max-median-ratio 1.5, a +50us shim run fails 1.1" {
  [ -x "$VERBSEMU" ] || flunk "no shim launcher $VERBSEMU: bazel build //shim:verbsemu //shim:libverbsemu.so"
  local shim=("$VERBSEMU" run --latency 50us --report "$VM_LOGDIR/shim.report" --) rc=0 run try n s
  for try in 1 2 3; do
    for run in native1:10000 shim50:10000 native2:10000; do
      local tag=${run%:*}_$try
      VB_PREFIX=()
      [[ "$tag" != shim* ]] || VB_PREFIX=("${shim[@]}")
      clean_lat "$tag" "${run#*:}" || rc=$?
      [ "$rc" = 0 ] || flunk "no clean $tag run in 5 tries (exit $rc): the test bed's host is too busy"
    done
    VB_PREFIX=()
    n=$(compare_rc "native1_$try" "native2_$try" --max-median-ratio 1.5)
    s=$(compare_rc "native1_$try" "shim50_$try" --max-median-ratio 1.1)
    [ "$n" = 0 ] && [ "$s" = 1 ] && break
    echo "# triple $try: natives' compare exited $n (want 0), the shim run's $s (want 1): again" >&3
  done
  report_saw "$VM_LOGDIR/shim.report" || flunk "the shim saw no work requests" "$VM_LOGDIR/shim.report"
  compare_runs natives 0 "native1_$try" "native2_$try" --max-median-ratio 1.5
  compare_runs shim 1 "native1_$try" "shim50_$try" --max-median-ratio 1.1
  grep -q "^verbsbench compare: lat send size 8: p50 ratio .* > 1.1$" "$VM_LOGDIR/shim.err" ||
    flunk "exit 1 without the median's crossing line" "$VM_LOGDIR/shim.err"
  for run in native_raw:1000 shim50_raw:1000; do
    local tag=${run%:*}
    VB_PREFIX=()
    [[ "$tag" != shim* ]] || VB_PREFIX=("${shim[@]}")
    clean_lat "$tag" "${run#*:}" --raw /dev/null || rc=$?
    [ "$rc" = 0 ] || flunk "no clean $tag run in 5 tries (exit $rc): the test bed's host is too busy"
  done
  VB_PREFIX=()
  compare_runs raw 1 native_raw shim50_raw --distance-from raw --max-ks 0.5
  grep -q "distances from raw samples" "$VM_LOGDIR/raw.out" || flunk "not from the raw samples" "$VM_LOGDIR/raw.out"
  grep -q "^verbsbench compare: lat send size 8: KS .* > 0.5$" "$VM_LOGDIR/raw.err" ||
    flunk "+50 us is not at a KS distance above 0.5" "$VM_LOGDIR/raw.err"
}

# ---- rank map, provenance, launchers ---------------------------------------
# check_ranks TAG N DEV0 DEVN: the JSON names N ranks in order, each with
# this guest's host name, a pid of its own and its device (rank 0 on DEV0,
# the others on DEVN), and the run's provenance.
check_ranks() {
  local tag=$1 n=$2 dev0=$3 devn=$4 r want seen="" pid host
  host=$(hostname)
  [ "$(jsize "$tag" /ranks)" = "$n" ] || flunk "$(jsize "$tag" /ranks) ranks, expected $n" "$VM_LOGDIR/$tag.json"
  for ((r = 0; r < n; r++)); do
    want=$devn
    [ "$r" = 0 ] && want=$dev0
    pid=$(jget "$tag" "/ranks/$r/pid")
    if [ "$(jget "$tag" "/ranks/$r/rank")" != "$r" ] || [ "$(jget "$tag" "/ranks/$r/host")" != "$host" ] ||
      [ "$(jget "$tag" "/ranks/$r/device/name")" != "$want" ] || [ -z "$pid" ] ||
      [ -z "$(jget "$tag" "/ranks/$r/device/gid")" ] || [[ " $seen " == *" $pid "* ]]; then
      flunk "rank $r is not $host/$want with a pid of its own" "$VM_LOGDIR/$tag.json"
    fi
    seen="$seen $pid"
  done
  local version kernel rdma_core
  version=$(jget "$tag" /provenance/version) kernel=$(jget "$tag" /provenance/kernel)
  rdma_core=$(jget "$tag" /provenance/rdma_core)
  if [ -z "$version" ] || [ "$version" = unknown ] || [ "$kernel" != "$(uname -r)" ] ||
    ! [[ "$rdma_core" =~ ^[0-9]+\.[0-9]+$ ]] || [ -z "$(jget "$tag" /provenance/cpu)" ] ||
    ! [[ "$(jget "$tag" /provenance/time_utc)" =~ ^20[0-9-]+T[0-9:]+Z$ ]] ||
    [ "$(jget "$tag" /provenance/argv/1)" != "$(jget "$tag" /params/mode)" ]; then
    flunk "provenance incomplete" "$VM_LOGDIR/$tag.json"
  fi
  echo "ranks:$(for ((r = 0; r < n; r++)); do printf ' %s=%s/%s' "$r" "$(jget "$tag" "/ranks/$r/host")" \
    "$(jget "$tag" "/ranks/$r/device/name")"; done); verbsbench $version, kernel $kernel, rdma-core $rdma_core"
}

# bats test_tags=topology-independent
@test "lat over TCP: the JSON names both ranks' hosts and devices, and its provenance" {
  local tag=ranks_tcp
  vb_run "$tag" 1 lat --cm tcp "${ROOT_DEV[@]}" -n 100 -s 8 -- --cm tcp "${PEER_DEV[@]}" -q ||
    flunk_run "$tag" "run failed"
  [ "$(jget "$tag" /provenance/rte/kind)" = tcp ] || flunk "rte is not tcp" "$VM_LOGDIR/$tag.json"
  check_ranks "$tag" 2 "$SERVER_DEV" "$CLIENT_DEV"
}

# The acceptance case of the launcher rendezvous: mpirun -np 3 (Open MPI from
# the host's root; tests/vm/run boots with --host-root), rank 0 the root and
# ranks 1, 2 its peers, the QPs exchanged over MPI with no port given. Open
# MPI's MPMD form (A : B) puts the root on the server's device and the peers
# on the client's (rxe0 and rxe1 in the pair topology).
# bats test_tags=topology-independent
@test "lop under mpirun -np 3: no ports, peers in rank order, every rank's host and device recorded" {
  local root=${VERBSEMU_VM_HOST_ROOT:-} tag=lop_mpi points
  [ -n "$root" ] || flunk "the guest has no host root: boot with soft-roce/vm --host-root (tests/vm/run does)"
  chroot "$root" /bin/sh -c "command -v mpirun" >/dev/null ||
    flunk "the host has no mpirun: tools/bootstrap installs openmpi-bin"
  chroot "$root" /usr/bin/env -C "$PWD" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout 300 mpirun --oversubscribe --bind-to none \
    -np 1 "$VB" lop --yield -n 50 -w 5 -d "$SERVER_DEV" -x "$SERVER_GID" --timeout 60 \
    --json "$VM_LOGDIR/$tag.json" --csv "$VM_LOGDIR/$tag.csv" : \
    -np 2 "$VB" lop -d "$CLIENT_DEV" -x "$CLIENT_GID" --timeout 60 \
    >"$VM_LOGDIR/$tag.out" 2>&1 || flunk "mpirun exited $?" "$VM_LOGDIR/$tag.out"
  if [ "$(jget "$tag" /provenance/rte/kind)" != mpi ] || [ "$(jget "$tag" /provenance/rte/size)" != 3 ] ||
    [ "$(jget "$tag" /provenance/rte/launch/variable)" != OMPI_COMM_WORLD_RANK ] ||
    [ "$(jget "$tag" /params/peers)" != 2 ] || [ "$(jget "$tag" /device/connection)" != tcp ]; then
    flunk "not a 3-rank MPI run with 2 peers" "$VM_LOGDIR/$tag.json"
  fi
  points=$(grep -c '^round_1n_send_inline,' "$VM_LOGDIR/$tag.csv" || true)
  [ "$points" = 2 ] || flunk "round_1n_send_inline has $points points, expected 2" "$VM_LOGDIR/$tag.csv"
  # The UD addresses went over MPI too: the list-posted round ran.
  points=$(grep -c '^round_1n_send_inline_list,' "$VM_LOGDIR/$tag.csv" || true)
  [ "$points" = 2 ] || flunk "round_1n_send_inline_list has $points points, expected 2" "$VM_LOGDIR/$tag.csv"
  check_stats "$tag" /lop/curves/0/points/1/stats || flunk "point stats incomplete" "$VM_LOGDIR/$tag.json"
  ! grep -q "peer done" "$VM_LOGDIR/$tag.out" || flunk "peers wrote to the shared stdout" "$VM_LOGDIR/$tag.out"
  check_ranks "$tag" 3 "$SERVER_DEV" "$CLIENT_DEV"
}


# ---- rdma_cm → out-of-band fallback ----------------------------------------
# On 127.0.0.1 the root's rdma_cm listener binds, but the peer's route
# resolution fails (no RDMA device on lo): with --cm auto both fall back to
# the TCP exchange; with --cm rdmacm both fail with one line.
@test "rdma_cm to out-of-band fallback" {
  local tag=fallback conn
  ADDR=127.0.0.1
  vb_run "$tag" 1 lat -x "$SERVER_GID" -n 100 -s 8 -- -x "$SERVER_GID" -q || flunk_run "$tag" "run failed"
  conn=$(jget "$tag" /device/connection)
  if [ "$conn" != "rdmacm+tcp-fallback" ] || [ "$(jget "$tag" /results/0/stats/count)" != 100 ]; then
    flunk "connection '$conn'" "$VM_LOGDIR/$tag.json"
  fi
  echo "$conn ($(jget "$tag" /device/cm_fallback_reason))"
}

@test "--cm rdmacm without a route fails in one line" {
  local tag=forced_cm
  ADDR=127.0.0.1
  if vb_run "$tag" 1 lat --cm rdmacm -n 100 -s 8 --; then
    flunk_run "$tag" "succeeded"
  fi
  if [ "$(grep -c . "$VM_LOGDIR/$tag.peer0")" != 1 ] || ! grep -q "^verbsbench: rdma_" "$VM_LOGDIR/$tag.peer0"; then
    flunk "unexpected peer output" "$VM_LOGDIR/$tag.peer0"
  fi
  cat "$VM_LOGDIR/$tag.peer0"
}

# ---- errors ----------------------------------------------------------------
err_case() { # EXPECTED_REGEX ARGS...
  local re=$1
  shift
  local out rc=0
  out=$(timeout 60 "$VB" "$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$(echo "$out" | grep -c .)" != 1 ] || ! echo "$out" | grep -Eq "$re"; then
    flunk "exit $rc, stderr '$out'"
  fi
  echo "exit $rc, '$out'"
}
# bats test_tags=topology-independent
@test "unknown mode" { err_case "unknown mode" pong; }
# bats test_tags=topology-independent
@test "bad size" { err_case "bad size" lat -s 12Q; }
# bats test_tags=topology-independent
@test "loggp write" { err_case "loggp measures send/recv only" loggp --op write; }
# bats test_tags=topology-independent
@test "peer not reachable" { err_case "not reachable" lat 127.0.0.1 --port 1 --timeout 1; }
# bats test_tags=topology-independent
@test "rdma_cm forced with bad bind" {
  local port
  port=$(new_port)
  err_case "rdma|bind|cannot" lat --cm rdmacm --bind 203.0.113.7 --port "$port" --timeout 2
}
