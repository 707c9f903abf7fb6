#!/usr/bin/env bats
# The verbsbench binary on bad input: exactly one line on stderr and the
# wanted exit status (2 for usage, 1 for a peer it cannot reach); --help
# prints the usage. Runs without an RDMA device.

bats_require_minimum_version 1.5.0
load ../bazel/expect_error

setup() {
  verbsbench=$BATS_TEST_DIRNAME/verbsbench
}

# fails STATUS REGEX ARGS...: verbsbench ARGS exits STATUS with one stderr
# line matching REGEX.
fails() {
  local status=$1 regex=$2
  shift 2
  expect_error --status "$status" --stderr -E "$regex" "$verbsbench" "$@"
}

@test "an unknown mode is refused, exit 2" {
  fails 2 "^verbsbench: unknown mode 'pong'" pong
}

@test "no mode is refused, exit 2" {
  fails 2 "^verbsbench: missing mode" --port 5
}

@test "a size with a bad unit is refused, exit 2" {
  fails 2 "^verbsbench: bad size '12Q'" lat -s 12Q
}

@test "an ambiguous size (4KB) is refused, exit 2" {
  fails 2 "^verbsbench: bad size '4KB': ambiguous" lat -s 4KB
}

@test "a size range that runs backwards is refused, exit 2" {
  fails 2 "^verbsbench: bad size range" lat -s 64:8
}

@test "an unknown option is refused naming it, exit 2" {
  fails 2 "^verbsbench: .*bogus" lat --bogus
}

@test "a bad --inline value is refused, exit 2" {
  fails 2 "^verbsbench: bad --inline" lat --inline sometimes
}

@test "lop refuses --op read, exit 2" {
  fails 2 "^verbsbench: lop measures send and write only" lop --op read
}

@test "lop refuses a --p beyond --peers, exit 2" {
  fails 2 "exceeds --peers" lop -P 2 --p 1:3
}

@test "a --mode-resolution below 0.02 is refused, exit 2" {
  fails 2 "^verbsbench: --mode-resolution must be a fraction from 0.02 to 1" lat --mode-resolution 0.01
}

@test "a --mode-resolution that is no number is refused, exit 2" {
  fails 2 "^verbsbench: .*mode-resolution.*invalid" lat --mode-resolution wide
}

@test "a peer that does not answer is one line, exit 1" {
  fails 1 "^verbsbench: peer 127.0.0.1:1 not reachable" lat 127.0.0.1 --port 1 --timeout 0.3
}

@test "a peer name that does not resolve is one line, exit 1" {
  fails 1 "^verbsbench: cannot resolve peer" lat no-such-host.invalid --timeout 0.3
}

@test "--help prints the usage and exits 0" {
  run --separate-stderr "$verbsbench" --help
  [ "$status" = 0 ]
  [[ "$output" == *"usage: verbsbench lat|bw|lop"* ]] || { echo "$output"; return 1; }
}
