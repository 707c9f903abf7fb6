#!/usr/bin/env bash
# Runs bats files as a Bazel test (bazel/bats.bzl): TAP in the test log, the
# JUnit report as Bazel's test.xml ($XML_OUTPUT_FILE).
#   bats_runner.sh FILE.bats...
set -u
# Bazel runs a test in its runfiles tree, at the workspace's root.
runner=tools/internal/run_bats
out=${TEST_TMPDIR:-$(mktemp -d)}/bats
# bats' own temporary directories (BATS_RUN_TMPDIR, each case's
# BATS_TEST_TMPDIR) under the test's, which Bazel cleans, not in /tmp.
if [ -n "${TEST_TMPDIR:-}" ]; then export TMPDIR=$TEST_TMPDIR; fi
rc=0
"$runner" "$out" "$@" || rc=$?
if [ -n "${XML_OUTPUT_FILE:-}" ] && [ -f "$out/report.xml" ]; then
  cp "$out/report.xml" "$XML_OUTPUT_FILE"
fi
exit "$rc"
