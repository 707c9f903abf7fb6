#!/usr/bin/env bats
# Every tracked BUILD, WORKSPACE and .bzl file is buildifier clean: formatted
# (-mode=check) and without lint warnings (-lint=warn), except the
# native-* ones, which ask for rules_cc and rules_shell: Bazel 4.2 has those
# rules built in, and a rules repository would be a download. And the check
# itself can fail: a misformatted and a warned file in a scratch directory
# are flagged. buildifier comes from tools/internal/buildifier.
# Run from the repository: bats tests/buildifier.bats (tools/test does).

setup() {
  repo=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  buildifier=$repo/tools/internal/buildifier
  warnings=-native-cc-binary,-native-cc-library,-native-cc-test,-native-sh-binary,-native-sh-test
}

@test "every BUILD, WORKSPACE and .bzl file is buildifier clean" {
  cd "$repo"
  local files=()
  mapfile -t files < <(git ls-files | grep -E '(^|/)(BUILD|BUILD\.bazel|WORKSPACE)$|\.bzl$')
  [ "${#files[@]}" -ge 20 ] || { echo "only ${#files[@]} files found"; return 1; }
  "$buildifier" -mode=check -lint=warn --warnings="$warnings" "${files[@]}"
}

@test "a misformatted or warned BUILD file is flagged" {
  local scratch=$BATS_TEST_TMPDIR/scratch
  mkdir -p "$scratch/good" "$scratch/bad" "$scratch/warned"
  cd "$scratch"
  printf 'cc_library(\n    name = "a",\n    srcs = ["a.cc"],\n)\n' >good/BUILD
  printf 'cc_library(name="a",srcs=["a.cc"])\n' >bad/BUILD
  printf 'load(":a.bzl", "unused")\n\ncc_library(\n    name = "a",\n)\n' >warned/BUILD
  "$buildifier" -mode=check -lint=warn --warnings="$warnings" good/BUILD
  run "$buildifier" -mode=check -lint=warn --warnings="$warnings" bad/BUILD
  [ "$status" != 0 ] || { echo "a misformatted file passed"; return 1; }
  echo "$output" | grep -q "reformat"
  run "$buildifier" -mode=check -lint=warn --warnings="$warnings" warned/BUILD
  [ "$status" != 0 ] || { echo "a warned file passed"; return 1; }
  echo "$output" | grep -q 'Loaded symbol "unused" is unused'
}
