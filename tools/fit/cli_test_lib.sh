#!/bin/bash
# expect_error, shared by the fit tools' CLI tests: bad input gives exactly
# one stderr line "TOOL: error: ...", the wanted exit code and no stdout.
# The sourcing test sets TOOL (the binary), TOOL_NAME, T (a scratch dir) and
# fails (the failure count).

# expect_error NAME CODE STDERR_REGEX -- ARGS...
expect_error() {
  local name="$1" want_code="$2" regex="$3"
  shift 4
  "$TOOL" "$@" >"$T/out" 2>"$T/err"
  local code=$? lines
  lines=$(wc -l <"$T/err")
  if [[ $code -ne $want_code ]]; then
    echo "FAIL $name: exit $code, want $want_code"; fails=$((fails + 1))
  elif [[ $lines -ne 1 ]]; then
    echo "FAIL $name: $lines stderr lines, want 1:"; cat "$T/err"
    fails=$((fails + 1))
  elif ! grep -Eq "^$TOOL_NAME: error: $regex" "$T/err"; then
    echo "FAIL $name: stderr '$(cat "$T/err")' !~ $regex"; fails=$((fails + 1))
  elif [[ -s "$T/out" ]]; then
    echo "FAIL $name: unexpected stdout"; fails=$((fails + 1))
  else
    echo "ok   $name: $(cat "$T/err")"
  fi
}
