#!/usr/bin/env bash
# Inside soft-roce/vm (pair topology): `verbsemu sweep` of ib_send_lat, both
# ends under the shim, over 0-50 us of added one-way latency; the fitted
# slope of perftest's one-way latency should be 1.00 us per us.
#   soft-roce/vm --topology pair --timeout 1800 -- tools/internal/sweep_demo.sh [OUT] [REPEAT] [t_min|t_typical] [ITERS]
# The default metric is t_min, the fastest of the run's iterations: the
# spin is a floor under each of them, while t_typical (the median) also
# carries rxe's own packet work, which competes with both perftest ends for
# the guest's 2 vCPUs and partly hides behind the spin (docs/sweep.md).
# 10,000 iterations (about 1.5 s a run) give t_min the chance to find the
# floor while the host is slow: with 1,000 the same busy host gave R² 0.54.
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${1:-sweep-demo/ib_send_lat}
repeat=${2:-3}
metric=${3:-t_min}
iters=${4:-10000}
rm -rf "$out"
bazel-bin/shim/verbsemu sweep --latency 0,10us,20us,30us,40us,50us \
  --repeat "$repeat" --metric "regex:$metric ([0-9.]+)" --timeout 600s --out "$out" \
  -- tools/internal/perftest_pair.sh ib_send_lat 64 "$iters"
