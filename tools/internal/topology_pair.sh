#!/usr/bin/env bash
# VERBSEMU_TOPOLOGY in the test bed (pair topology): one rxe1 client sends
# to two peers, rxe0 (class "cross", +CROSS us) and rxe1 itself (rxe's
# loopback, class "local", +LOCAL us), chosen by one topology file that
# both ends of both pairs read: each end's route names its own port (FROM)
# and its peer (TO). ib_send_lat, 64 B, native and under the shim
# alternating ROUNDS times per peer; judged on the best t_min of each side
# (rxe in a TCG guest stalls whole runs, which t_typical carries).
# --mode defer runs the shim in the defer latency mode (default spin).
#   tools/internal/topology_pair.sh [--cross 20] [--local 40] [--rounds 3] [--iters 3000] [--mode spin|defer]
set -u
cd "$(dirname "$0")/../.." || exit 2
source tests/vm/lib.sh
source shim/vm_lib.sh
CROSS=20 LOCAL=40 ROUNDS=3 ITERS=3000 MODE=spin
while [ $# -gt 0 ]; do
  case "$1" in
    --cross) CROSS=$2; shift 2 ;;
    --local) LOCAL=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    *) echo "topology_pair.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
case "$MODE" in
  spin|defer) ;;
  *) echo "topology_pair.sh: --mode is spin or defer, not '$MODE'" >&2; exit 2 ;;
esac
if ! have_rxe || [ "$TOPOLOGY" != pair ]; then
  echo "topology_pair.sh: run it inside soft-roce/vm --topology pair" >&2
  exit 2
fi
shim_ready || { echo "topology_pair.sh: build //shim:libverbsemu.so and //shim:verbsemu first" >&2; exit 2; }
PERF_TIMEOUT=600
export PERF_TIMEOUT
addr0=$SERVER_ADDR addr1=${VERBSEMU_VM_ADDR1:?no second address}
file="$VM_LOGDIR/pair.topology"
cat >"$file" <<EOF
class cross latency=${CROSS}us
class local latency=${LOCAL}us
route $addr0 $addr1 cross
route $addr1 $addr0 cross
route $addr1 $addr1 local
EOF
echo "Topology ($file):"
echo
sed 's/^/    /' "$file"
echo

minimum() { printf '%s\n' "$@" | sort -n | head -n 1; }
# tmin TAG FLAGS: the client's t_min (us) of one ib_send_lat pair.
tmin() {
  perf_pair lat "$1" ib_send_lat 64 "$ITERS" "$2" >/dev/null
  perftest_row "$VM_LOGDIR/$1.client" | awk 'NF >= 9 && $3 > 0 {print $3}'
}

echo "| peer | class | target | round | native t_min | shim t_min |"
echo "|---|---|---:|---:|---:|---:|"
summary=()
for peer in cross local; do
  target=$CROSS
  if [ "$peer" = local ]; then
    # rxe1 to itself: the server end on rxe1 too.
    SERVER_DEV=$CLIENT_DEV SERVER_GID=$CLIENT_GID SERVER_ADDR=$addr1
    target=$LOCAL
  fi
  nat=() emu=()
  for r in $(seq "$ROUNDS"); do
    n=$(tmin "tp_${peer}_native_$r" -)
    s=$(tmin "tp_${peer}_shim_$r" "--topology,$file,--latency-mode,$MODE")
    [ -n "$n" ] && nat+=("$n")
    [ -n "$s" ] && emu+=("$s")
    echo "| $peer | $peer | +$target us | $r | ${n:-(failed)} | ${s:-(failed)} |"
    if [ -n "$s" ] && ! grep -q "^topology .*$peer 1 QP" "$VM_LOGDIR/tp_${peer}_shim_$r.report" 2>/dev/null; then
      echo "topology_pair.sh: the report of tp_${peer}_shim_$r does not show the class $peer" >&2
    fi
  done
  if [ ${#nat[@]} -gt 0 ] && [ ${#emu[@]} -gt 0 ]; then
    summary+=("$(awk -v p="$peer" -v b="$(minimum "${nat[@]}")" -v s="$(minimum "${emu[@]}")" -v t="$target" \
      'BEGIN {printf "%s: best t_min %.2f -> %.2f us: +%.2f us for +%g us (%+.1f%%)", p, b, s, s - b, t, 100 * (s - b - t) / t}')")
  fi
done
echo
printf '%s\n' "${summary[@]}"
