#!/usr/bin/env bash
# Validates verbsbench on Soft-RoCE:
#  1. latency: verbsbench lat and perftest ib_send_lat / ib_write_lat on the
#     same device in the same run, interleaved, printing both minima and
#     medians and their ratio (goal: verbsbench's minimum <= perftest's);
#  2. lop with p = 1..16 peers (separate processes) within 5 minutes, writing
#     the JSON for lopfit (models/lop), and the fit when lopfit is built.
# On the host it builds verbsbench and runs itself inside soft-roce/vm:
#   tools/validate_verbsbench.sh [--out DIR] [--rounds R] [--iters N]
#                                [--peers P] [--lop-iters N] [--topology T]
# Results: DIR (default validate-out/) holds summary.txt, lat_*.json, lop.json
# (+ lop.csv, lop_hist.dat, lopfit.txt). Exit 0 when every run completed and
# lop finished in time.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo=$PWD

out=validate-out rounds=3 iters=5000 peers=16 lop_iters=100 topology=single
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --lop-iters) lop_iters=$2; shift 2 ;;
    --topology) topology=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "validate_verbsbench: unknown option '$1'" >&2; exit 2 ;;
  esac
done
case "$out" in /*) ;; *) out=$repo/$out ;; esac

if [ -z "${VERBSEMU_VM_TOPOLOGY:-}" ]; then
  # Host: build, then run in the guest.
  bazel build --jobs=2 //verbsbench:verbsbench //verbsbench:json_get || exit 1
  mkdir -p "$out" || exit 1
  soft-roce/vm --topology "$topology" --timeout 2400 -- \
    tools/validate_verbsbench.sh --out "$out" --rounds "$rounds" --iters "$iters" \
    --peers "$peers" --lop-iters "$lop_iters"
  rc=$?
  fit=$repo/bazel-bin/models/lop/lopfit
  if [ "$rc" = 0 ] && [ -x "$fit" ]; then
    echo "== lopfit (median) on $out/lop.json"
    "$fit" --stat median "$out/lop.json" | tee "$out/lopfit.txt"
  elif [ "$rc" = 0 ]; then
    echo "lopfit not built here; fit with: bazel run //models/lop:lopfit -- $out/lop.json"
  fi
  exit "$rc"
fi

# ---- guest ---------------------------------------------------------------
VB=$repo/bazel-bin/verbsbench/verbsbench
JG=$repo/bazel-bin/verbsbench/json_get
dev=$VERBSEMU_VM_DEV0 gid=$VERBSEMU_VM_GID0 addr=$VERBSEMU_VM_ADDR0
cdev=${VERBSEMU_VM_DEV1:-$dev} cgid=${VERBSEMU_VM_GID1:-$gid}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
port=24000
failed=0

say "# verbsbench validation on $dev ($VERBSEMU_VM_TOPOLOGY topology, $(nproc) vCPUs, $(uname -r))"
say "# $(date -u +%FT%TZ); $rounds interleaved rounds x $iters iterations; inline as perftest's default"

# perftest LOG: "t_min t_typical" (usec) from the client's result row.
perftest_nums() { awk '/^ *#bytes/ {getline; print $3, $5; exit}' "$1"; }

# lat_pair TEST SIZE ROUND: one perftest run and one verbsbench run.
lat_pair() {
  local test=$1 size=$2 r=$3 op
  op=${test#ib_}
  op=${op%_lat}
  port=$((port + 2))
  local plog=$out/pt_${op}_${size}_$r
  timeout 120 "$test" -d "$dev" -x "$gid" -p "$port" -s "$size" -n "$iters" >"$plog.server" 2>&1 &
  local spid=$!
  sleep 1
  timeout 120 "$test" -d "$cdev" -x "$cgid" -p "$port" -s "$size" -n "$iters" "$addr" >"$plog.client" 2>&1
  wait "$spid"
  local pt
  pt=$(perftest_nums "$plog.client")
  port=$((port + 2))
  local json=$out/lat_${op}_${size}_$r.json
  # Same devices and the same out-of-band setup as perftest.
  timeout 120 "$VB" lat --bind "$addr" --port "$port" --cm tcp -d "$dev" -x "$gid" --op "$op" \
    --inline on -s "$size" -n "$iters" -w 100 -q --json "$json" --timeout 60 &
  spid=$!
  sleep 1
  timeout 120 "$VB" lat "$addr" --port "$port" --cm tcp -d "$cdev" -x "$cgid" -q --timeout 60
  wait "$spid"
  local vmin vp50
  vmin=$("$JG" "$json" /results/0/stats/min_ns 2>/dev/null)
  vp50=$("$JG" "$json" /results/0/stats/p50_ns 2>/dev/null)
  if [ -z "$pt" ] || [ -z "$vmin" ]; then
    say "$op $size round $r: FAILED (perftest '$pt', verbsbench '$vmin')"
    failed=$((failed + 1))
    return
  fi
  echo "$op $size $r $pt $vmin $vp50" >>"$out/lat_rows.txt"
}

: >"$out/lat_rows.txt"
for r in $(seq 1 "$rounds"); do
  for test in ib_send_lat ib_write_lat; do
    for size in 2 64; do lat_pair "$test" "$size" "$r"; done
  done
done

say ""
say "## Latency (RTT/2, usec): perftest vs verbsbench, same device, interleaved runs"
say "| op | size | round | perftest t_min | verbsbench min | min ratio vb/pt | perftest t_typical | verbsbench p50 | median ratio vb/pt |"
say "|---|---|---|---|---|---|---|---|---|"
awk '{printf "| %s | %s | %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f |\n", $1, $2, $3, $4, $6/1000, ($6/1000)/$4, $5, $7/1000, ($7/1000)/$5}' \
  "$out/lat_rows.txt" | tee -a "$summary"
say ""
say "## Per op and size over all rounds (min of minima, median of medians)"
say "| op | size | perftest min | verbsbench min | ratio | perftest median | verbsbench median | ratio | vb min <= pt min |"
say "|---|---|---|---|---|---|---|---|---|"
for key in "send 2" "send 64" "write 2" "write 64"; do
  grep "^$key " "$out/lat_rows.txt" | awk '
    {pm[NR] = $4 + 0; vm[NR] = $6 / 1000; pt[NR] = $5 + 0; vt[NR] = $7 / 1000; n = NR; op = $1; sz = $2}
    function amin(arr, cnt,   i, m) {m = arr[1]; for (i = 2; i <= cnt; i++) if (arr[i] < m) m = arr[i]; return m}
    function amed(arr, cnt,   i, j, t) {
      for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (arr[j] < arr[i]) {t = arr[i]; arr[i] = arr[j]; arr[j] = t}
      return cnt % 2 ? arr[(cnt + 1) / 2] : (arr[cnt / 2] + arr[cnt / 2 + 1]) / 2}
    END {
      if (!n) exit
      ptmin = amin(pm, n); vbmin = amin(vm, n); ptmed = amed(pt, n); vbmed = amed(vt, n)
      ok = "no"; if (vbmin <= ptmin) ok = "yes"
      printf "| %s | %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %s |\n", op, sz, ptmin, vbmin, vbmin / ptmin, ptmed, vbmed, vbmed / ptmed, ok
    }' | tee -a "$summary"
done

# ---- lop p = 1..peers ------------------------------------------------------
say ""
say "## lop: p = 1..$peers peers (separate processes, --yield), $lop_iters iterations per point"
port=$((port + 2))
start=$(date +%s)
# Progress lines ("lop p=N op mode") go to lop.root.err.
timeout 1500 "$VB" lop --bind "$addr" --port "$port" -P "$peers" --yield -n "$lop_iters" -w 10 \
  --timeout 120 --json "$out/lop.json" --csv "$out/lop.csv" --histogram "$out/lop_hist.dat" \
  >"$out/lop.root.out" 2>"$out/lop.root.err" &
rpid=$!
sleep 1
pids=()
for i in $(seq 1 "$peers"); do
  timeout 1500 "$VB" lop "$addr" --port "$port" --timeout 120 -q >"$out/lop.peer$i" 2>&1 &
  pids+=($!)
done
lop_rc=0
for p in "${pids[@]}"; do wait "$p" || lop_rc=1; done
wait "$rpid" || lop_rc=1
elapsed=$(($(date +%s) - start))
if [ "$lop_rc" != 0 ]; then
  say "lop FAILED (exit status after ${elapsed} s; last progress: $(tail -n 1 "$out/lop.root.err"))"
  tail -5 "$out/lop.root.err"
  failed=$((failed + 1))
else
  say "lop: $("$JG" "$out/lop.json" /lop/curves --size) curves in ${elapsed} s (limit 300 s): $([ "$elapsed" -lt 300 ] && echo OK || echo TOO SLOW)"
  [ "$elapsed" -lt 300 ] || failed=$((failed + 1))
  say ""
  cols=""
  for p in 1 2 4 8 16 32 64; do [ "$p" -le "$peers" ] && cols="$cols $p"; done
  [ "${cols##* }" = "$peers" ] || cols="$cols $peers"
  say "Medians in usec (RTT: full round trip; o_s/o_r: per WR; L: derived):"
  say ""
  awk -F, -v cols="$cols" 'NR > 1 && ($1 ~ /^rtt2_/ || $1 ~ /^o[sr]_/ || $1 ~ /^L_1n/ || $1 ~ /^Llist_1n/) {
      v[$1, $8] = $10 / 1000; if (!($1 in seen)) {seen[$1] = 1; order[++n] = $1}}
    END {
      k = split(cols, c, " ")
      printf "| curve |"; for (j = 1; j <= k; j++) printf " p=%s |", c[j]; printf "\n|---|"
      for (j = 1; j <= k; j++) printf "---|"; printf "\n"
      for (i = 1; i <= n; i++) {printf "| %s |", order[i]
        for (j = 1; j <= k; j++) printf " %.2f |", v[order[i], c[j]]; printf "\n"}}' \
    "$out/lop.csv" | tee -a "$summary"
fi
say ""
say "validation: $failed failure(s); files in $out"
[ "$failed" = 0 ]
