# shellcheck shell=bash
# For bats suites (`load ../bazel/expect_error`, the path from the suite;
# data "//bazel:expect_error.bash"): a command that must fail fast with
# one clear line.

# expect_error [OPTION...] TEXT CMD...: CMD exits non-zero, and what it
# writes (stdout and stderr together) is one line, containing TEXT.
#   --status N   the exit status is N.
#   -E           TEXT is an extended regular expression (grep -E) the line
#                matches: anchor it with ^ and $ to match the whole line.
#   --stderr     the line is on stderr; stdout is not looked at.
#   --no-stdout  stdout is empty: the line is on stderr.
expect_error() {
  local status='' grep_mode=-F stderr_only=0 no_stdout=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --status) status=$2; shift 2 ;;
      -E) grep_mode=-E; shift ;;
      --stderr) stderr_only=1; shift ;;
      --no-stdout) no_stdout=1; shift ;;
      *) break ;;
    esac
  done
  local pattern=$1 dir out err rc=0 lines
  shift
  dir=$(mktemp -d "${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/expect_error.XXXXXX") || return 1
  "$@" >"$dir/stdout" 2>"$dir/stderr" </dev/null || rc=$?
  err=$(cat "$dir/stderr")
  if [ "$stderr_only" = 1 ]; then
    out=$err
  else
    out=$(printf '%s\n%s\n' "$(cat "$dir/stdout")" "$err" | sed '/^$/d')
  fi
  lines=$(printf '%s\n' "$out" | grep -c . || true)
  if [ "$rc" = 0 ] || { [ -n "$status" ] && [ "$rc" != "$status" ]; } || [ "$lines" != 1 ] ||
    ! printf '%s\n' "$out" | grep -q "$grep_mode" -- "$pattern"; then
    echo "exit $rc${status:+ (want $status)}, $lines line(s): $out"
    return 1
  fi
  if [ "$no_stdout" = 1 ] && [ -s "$dir/stdout" ]; then
    echo "exit $rc, stdout not empty: $(cat "$dir/stdout")"
    return 1
  fi
}
