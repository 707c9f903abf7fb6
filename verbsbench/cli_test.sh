#!/bin/sh
# The verbsbench binary on bad input: exactly one line on stderr, non-zero
# exit. Runs without an RDMA device.
bin="$1"
fails=0
check() {  # NAME EXPECTED_STATUS REGEX ARGS...
  name=$1 want=$2 re=$3
  shift 3
  err=$("$bin" "$@" 2>&1 >/dev/null)
  rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$rc" != "$want" ] || [ "$lines" != 1 ] || ! printf '%s' "$err" | grep -Eq "$re"; then
    echo "FAIL $name: exit $rc (want $want), $lines stderr lines: $err"
    fails=$((fails + 1))
  else
    echo "PASS $name: $err"
  fi
}
check "unknown mode" 2 "^verbsbench: unknown mode 'pong'" pong
check "no mode" 2 "^verbsbench: missing mode" --port 5
check "bad size" 2 "^verbsbench: bad size '12Q'" lat -s 12Q
check "ambiguous size" 2 "^verbsbench: bad size '4KB': ambiguous" lat -s 4KB
check "bad range" 2 "^verbsbench: bad size range" lat -s 64:8
check "bad option" 2 "^verbsbench: .*bogus" lat --bogus
check "bad inline" 2 "^verbsbench: bad --inline" lat --inline sometimes
check "lop read" 2 "^verbsbench: lop measures send and write only" lop --op read
check "p beyond peers" 2 "exceeds --peers" lop -P 2 --p 1:3
check "mode resolution" 2 "^verbsbench: --mode-resolution must be a fraction from 0.02 to 1" lat --mode-resolution 0.01
check "mode resolution text" 2 "^verbsbench: .*mode-resolution.*invalid" lat --mode-resolution wide
check "peer unreachable" 1 "^verbsbench: peer 127.0.0.1:1 not reachable" lat 127.0.0.1 --port 1 --timeout 0.3
check "unresolvable peer" 1 "^verbsbench: cannot resolve peer" lat no-such-host.invalid --timeout 0.3
if ! out=$("$bin" --help) || ! printf '%s' "$out" | grep -q "usage: verbsbench lat|bw|lop"; then
  echo "FAIL help"
  fails=$((fails + 1))
fi
[ "$fails" = 0 ]
