#!/usr/bin/env bats
# Every tracked C++ file is formatted as the repository's .clang-format says
# (clang-format --dry-run -Werror); and the check itself can fail: a
# misformatted file in a scratch repository is flagged.
# Run from the repository: bats tests/clang_format.bats (tools/test does).

setup() {
  repo=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
}

@test "every tracked C++ file is clang-format clean" {
  cd "$repo"
  local files=()
  mapfile -t files < <(git ls-files '*.cc' '*.h')
  # The repository has hundreds; a handful means the listing broke.
  [ "${#files[@]}" -ge 100 ] || { echo "only ${#files[@]} files found"; return 1; }
  clang-format --dry-run -Werror "${files[@]}"
}

@test "a misformatted file is flagged" {
  local scratch=$BATS_TEST_TMPDIR/scratch
  mkdir -p "$scratch"
  cd "$scratch"
  cp "$repo/.clang-format" .
  printf 'int f( int a ){return a;}\n' >bad.cc
  printf 'int f(int a) { return a; }\n' >good.cc
  clang-format --dry-run -Werror good.cc
  run clang-format --dry-run -Werror bad.cc
  [ "$status" != 0 ] || { echo "clang-format passed a misformatted file"; return 1; }
  echo "$output" | grep -q "clang-format-violations"
}
