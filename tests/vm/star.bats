#!/usr/bin/env bats
# The star topology (soft-roce/vm --topology star:N): N rxe ports on one
# bridge. Every ordered pair of ports reaches the right device across the
# bridge; and the shim's --fabric links narrows an incast into one port,
# which the egress alone does not.
# Runs in a star boot only: tests/vm/run --topologies star:4 tests/vm/star.bats

load common
# shellcheck source=shim/vm_lib.sh
source "$BATS_TEST_DIRNAME/../../shim/vm_lib.sh"

setup() {
  vm_setup
  [ "${VERBSEMU_VM_TOPOLOGY:-}" = star ] ||
    flunk "needs a star boot (soft-roce/vm --topology star:N); this one is '${VERBSEMU_VM_TOPOLOGY:-none}'"
}

# vm_var NAME K: the boot's VERBSEMU_VM_<NAME><K>.
vm_var() {
  local name="VERBSEMU_VM_$1$2"
  echo "${!name}"
}
rx_packets() { cat "/sys/class/net/veth$1/statistics/rx_packets"; }

@test "every ordered pair of ports reaches its own device across the bridge" {
  local n=${VERBSEMU_VM_N:?} c s k port tag iters=100 pairs=0
  local -a before
  for c in $(seq 0 $((n - 1))); do
    for s in $(seq 0 $((n - 1))); do
      [ "$c" = "$s" ] && continue
      for k in $(seq 0 $((n - 1))); do before[k]=$(rx_packets "$k"); done
      tag=pingpong-$c-$s
      port=$(new_port)
      run_pair "$tag" 60 "tcp_listening $port" \
        -- ibv_rc_pingpong -d "$(vm_var DEV "$s")" -g "$(vm_var GID "$s")" -p "$port" -n "$iters" \
        -- ibv_rc_pingpong -d "$(vm_var DEV "$c")" -g "$(vm_var GID "$c")" -p "$port" -n "$iters" \
        "$(vm_var ADDR "$s")" ||
        flunk "rxe$c -> rxe$s did not complete" "$VM_LOGDIR/$tag.server" "$VM_LOGDIR/$tag.client"
      # The server's port received every message; a port of neither end at
      # most 5% of that (a broadcast now and then, never the pair's traffic).
      local got=$(($(rx_packets "$s") - before[s]))
      [ "$got" -ge "$iters" ] || flunk "rxe$c -> rxe$s: veth$s received $got packets for $iters messages"
      for k in $(seq 0 $((n - 1))); do
        [ "$k" = "$c" ] || [ "$k" = "$s" ] && continue
        local stray=$(($(rx_packets "$k") - before[k]))
        [ "$stray" -le $((iters / 20)) ] ||
          flunk "rxe$c -> rxe$s: veth$k, of neither end, received $stray packets"
      done
      pairs=$((pairs + 1))
    done
  done
  echo "$pairs ordered pairs over $n ports"
}

# incast_mbs FABRIC: two ports under the shim (pace, 40 Mbit/s per port,
# --fabric FABRIC) write 64 KiB messages into a third at once; prints the
# two clients' BW averages (MB/s), space separated, or nothing on failure.
incast_mbs() {
  local fabric=$1 dst=2 c first port tag pids=() ports=() ok=1
  first=$(new_ports 2) || return 0
  ports=("$first" $((first + 1)))
  for c in 0 1; do
    timeout 120 ib_write_bw -d "$(vm_var DEV $dst)" -x "$(vm_var GID $dst)" -p "${ports[c]}" \
      -s 65536 -n 150 >"$VM_LOGDIR/incast-$fabric-$c.server" 2>&1 &
    pids+=($!)
  done
  for c in 0 1; do wait_until 30 tcp_listening "${ports[c]}" || ok=0; done
  for c in 0 1; do
    tag=incast-$fabric-$c
    timeout 120 "$VERBSEMU" run --report "$VM_LOGDIR/$tag.report" --bandwidth 40Mbit/s \
      --bw-mode pace --fabric "$fabric" -- ib_write_bw -d "$(vm_var DEV "$c")" \
      -x "$(vm_var GID "$c")" -p "${ports[c]}" -s 65536 -n 150 "$(vm_var ADDR $dst)" \
      >"$VM_LOGDIR/$tag.client" 2>&1 &
    pids+=($!)
  done
  for port in "${pids[@]}"; do wait "$port" || ok=0; done
  [ "$ok" = 1 ] || return 0
  for c in 0 1; do
    perftest_row "$VM_LOGDIR/incast-$fabric-$c.client" | awk '$1 == 65536 && $4 > 0 {printf "%s ", $4}'
  done
}

@test "an incast shares the receiving port's rate under --fabric links, not with the egress alone" {
  shim_ready || flunk "no shim build at $VERBSEMU"
  local links egress sum_links sum_egress target=5  # 40 Mbit/s in MB/s
  links=$(incast_mbs links)
  egress=$(incast_mbs egress)
  [ "$(echo "$links" | wc -w)" = 2 ] ||
    flunk "the incast under --fabric links did not complete" "$VM_LOGDIR"/incast-links-*
  [ "$(echo "$egress" | wc -w)" = 2 ] ||
    flunk "the incast with the egress alone did not complete" "$VM_LOGDIR"/incast-egress-*
  sum_links=$(echo "$links" | awk '{print $1 + $2}')
  sum_egress=$(echo "$egress" | awk '{print $1 + $2}')
  echo "two ports into one at $target MB/s per port: links $links(sum $sum_links), egress $egress(sum $sum_egress)"
  grep -q "^fabric links: " "$VM_LOGDIR/incast-links-0.report" ||
    flunk "the report does not say fabric links" "$VM_LOGDIR/incast-links-0.report"
  # Starts a fraction of a second apart: each client runs alone briefly.
  awk -v s="$sum_links" -v t="$target" 'BEGIN { exit !(s <= 1.25 * t) }' ||
    flunk "under --fabric links the two got $sum_links MB/s together, more than 1.25 x $target"
  awk -v s="$sum_egress" -v t="$target" 'BEGIN { exit !(s >= 1.6 * t) }' ||
    flunk "with the egress alone the two got $sum_egress MB/s together, less than 1.6 x $target"
}

# Contention graphs under --fabric links (tools/internal/contend_star.sh:
# verbsbench contend under mpirun, every rank under the shim, ports paced at
# 2 Mbit/s in defer mode): the one-edge rate is the port's, and in every run
# the last edge of a fan-out and of an incast of two ends at 2 T_ref, as
# max-min sharing says (the other may end sooner: the links serve WRs in
# the order they reach them). With --steady every sender's run records its
# WRs' completions (completions_ns: 5 edges x 2 runs).
@test "contention graphs under --fabric links: the port's rate, fan-out and incast of two at 2 T_ref" {
  [ -n "${VERBSEMU_VM_HOST_ROOT:-}" ] || flunk "the guest has no host root: boot with soft-roce/vm --host-root (tests/vm/run does)"
  local out=$VM_LOGDIR/contend rate graph last
  CONTEND_ARGS=--steady "$BATS_TEST_DIRNAME/../../tools/internal/contend_star.sh" "$out" links 2Mbit/s 128K 2 defer 16K \
    'a>b' 'fanout2: a>b,a>c' 'incast2: a>c,b>c' >"$VM_LOGDIR/contend.log" 2>&1 ||
    flunk "contend_star.sh failed" "$VM_LOGDIR/contend.log"
  [ "$(grep -c '"completions_ns"' "$out/contend.json")" = 10 ] ||
    flunk "not 10 edge runs with completions_ns in the measurement" "$out/contend.json"
  rate=$(sed -n 's/^alpha .* s\/B (\([0-9.e+]*\) B\/s).*/\1/p' "$out/fit.out")
  [ -n "$rate" ] || flunk "contentionfit gave no alpha" "$out/fit.out"
  awk -v r="$rate" 'BEGIN { exit !(r >= 0.98 * 250000 && r <= 1.02 * 250000) }' ||
    flunk "one edge moved $rate B/s, not 250000 within 2%" "$out/contend.out"
  # Per run, the graph's last end over a>b's mean T (the CSV: graph first,
  # T last; the canonical form is quoted, its comma inside).
  for graph in fanout2 incast2; do
    last=$(awk -F, -v g="$graph" 'NR > 1 && $1 == "a>b" { ref += $NF; nref++ }
      NR > 1 && $1 == g { rep = $(NF - 12); if ($NF > end[rep]) end[rep] = $NF }
      END { for (r in end) printf "%.3f ", end[r] / (ref / nref) }' "$out/contend.csv")
    [ "$(echo "$last" | wc -w)" = 2 ] || flunk "$graph: not 2 runs in the CSV" "$out/contend.csv"
    for x in $last; do
      awk -v x="$x" 'BEGIN { exit !(x >= 1.9 && x <= 2.1) }' ||
        flunk "$graph: a run's last edge ended at $x T_ref, not 2 within 5%" "$out/contend.csv"
    done
    echo "$graph: the runs' last edges at $last T_ref"
  done
  echo "one edge: $rate B/s (port 250000)"
}
