#!/usr/bin/env bats
# Every tracked shell script is clean under shellcheck at its default severity
# (style and up), with the repository's .shellcheckrc; and the check itself
# can fail: a dirty script in a scratch repository is found and flagged.
# Run from the repository: bats tests/shellcheck.bats (tools/test does).

setup() {
  repo=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
}

@test "every tracked shell script is shellcheck-clean" {
  cd "$repo"
  local scripts=()
  mapfile -t scripts < <(tools/internal/shell_scripts)
  # The repository has dozens; a handful means the listing broke.
  [ "${#scripts[@]}" -ge 20 ] || { echo "only ${#scripts[@]} scripts found: ${scripts[*]}"; return 1; }
  shellcheck "${scripts[@]}"
}

@test "a dirty tracked script is listed and flagged" {
  local scratch=$BATS_TEST_TMPDIR/scratch listed=()
  mkdir -p "$scratch/tools"
  cd "$scratch"
  git init -q .
  cp "$repo/.shellcheckrc" .
  # shellcheck disable=SC2016 # the unquoted $1 is the point
  printf '#!/usr/bin/env bash\necho $1\n' >tools/no-extension
  printf "# shellcheck shell=bash\necho clean\n" >lib.sh
  printf 'not a script\n' >notes.txt
  git add .
  mapfile -t listed < <("$repo/tools/internal/shell_scripts")
  [ "${listed[*]}" = "lib.sh tools/no-extension" ] || { echo "listed: ${listed[*]}"; return 1; }
  shellcheck lib.sh
  run shellcheck "${listed[@]}"
  [ "$status" != 0 ] || { echo "shellcheck passed a dirty script"; return 1; }
  echo "$output" | grep -q SC2086
}
