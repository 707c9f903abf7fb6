# shellcheck shell=bash
# For bats suites (`load expect_error`): a command that must fail fast with
# one clear line.

# expect_error TEXT CMD...: CMD exits non-zero with one line containing TEXT.
expect_error() {
  local pattern=$1 out rc=0 lines
  shift
  out=$("$@" 2>&1 </dev/null) || rc=$?
  lines=$(printf '%s\n' "$out" | grep -c . || true)
  if [ "$rc" = 0 ] || [ "$lines" != 1 ] || ! printf '%s' "$out" | grep -qF -- "$pattern"; then
    echo "exit $rc, $lines line(s): $out"
    return 1
  fi
}
