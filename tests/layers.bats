#!/usr/bin/env bats
# The package graph keeps to its table of layers (tools/layers.txt, checked
# by tools/internal/check_layers): on the tree itself, and on scratch trees
# that break it one way each, where the check must fail with a line that
# names the offence.
# Run from the repository: bats tests/layers.bats (tools/test's lint stage).

load bazel_detached

setup() {
  repo=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  check=$repo/tools/internal/check_layers
  scratch=$BATS_TEST_TMPDIR/tree
  mkdir -p "$scratch"/{low,mid,top/internal}
  cat >"$scratch/layers.txt" <<'EOF'
low:
mid: low
top: low mid
EOF
  printf 'cc_library(name = "low")\n' >"$scratch/low/BUILD"
  printf 'cc_library(\n    name = "mid",\n    deps = ["//low"],\n)\n' >"$scratch/mid/BUILD"
  cat >"$scratch/top/BUILD" <<'EOF'
cc_library(
    name = "top",
    srcs = ["top.cc"],
    data = ["//mid:data.txt"],
    deps = [
        ":helper",
        "//low",
        "//third_party:gtest",
    ],
)
EOF
  printf 'cc_library(name = "secret")\n' >"$scratch/top/internal/BUILD"
  printf '#include "top/internal/secret.h"\n' >"$scratch/top/top.cc"
}

# flagged STATUS TEXT...: the check on the scratch tree exits STATUS and
# says each TEXT.
flagged() {
  local want=$1 text
  shift
  run "$check" "$scratch" "$scratch/layers.txt"
  echo "$output"
  [ "$status" = "$want" ] || { echo "exit $status, want $want"; return 1; }
  for text in "$@"; do
    [[ "$output" == *"$text"* ]] || { echo "no line says: $text"; return 1; }
  done
}

@test "the tree's BUILD files and includes keep to tools/layers.txt" {
  run "$check"
  echo "$output"
  [ "$status" = 0 ]
  [[ "$output" =~ ^[0-9]+\ BUILD\ files ]]
}

# query EXPR: bazel query's answer on the tree, nothing on stderr unless it
# failed.
query() {
  cd "$repo" || return 1
  bazel_detached query --noshow_progress "$1" 2>"$BATS_TEST_TMPDIR/query.err" ||
    { cat "$BATS_TEST_TMPDIR/query.err"; return 1; }
}

@test "the shim library reaches neither the sweep nor doctor; the command does" {
  local out
  # The query sees an arrow where there is one: the command dispatches to
  # both.
  out=$(query 'somepath(//shim:verbsemu, //sweep:cli)')
  [ -n "$out" ] || { echo "no path from //shim:verbsemu to //sweep:cli"; return 1; }
  out=$(query 'somepath(//shim:libverbsemu.so, //sweep/... + //doctor/...)')
  [ -z "$out" ] || { echo "libverbsemu.so reaches: $out"; return 1; }
}

@test "nothing below the shim reaches it (bazel query)" {
  local out
  out=$(query 'somepath(//base/... + //emulate/... + //settings/... + //report/... + //sweep/... + //doctor/... + //version/..., //shim/...)')
  [ -z "$out" ] || { echo "a path up into //shim: $out"; return 1; }
}

@test "a scratch tree that keeps to its table passes" {
  flagged 0
}

@test "an arrow the table does not allow is flagged" {
  printf 'cc_library(\n    name = "low",\n    data = ["//mid:x"],\n)\n' >"$scratch/low/BUILD"
  flagged 1 "low/BUILD: low -> mid is not in"
}

@test "a \$(location) argument is an arrow too" {
  # shellcheck disable=SC2016 # a BUILD file's text, not for the shell
  printf 'sh_test(\n    name = "t",\n    args = ["$(location //top)"],\n)\n' >"$scratch/mid/BUILD"
  flagged 1 "mid -> top is not in"
}

@test "a visibility list and a comment are no arrows" {
  cat >"$scratch/low/BUILD" <<'EOF'
# Used by //top (a comment).
package(default_visibility = ["//top:__pkg__"])

cc_library(
    name = "low",
    visibility = [
        "//mid:__pkg__",
        "//top:__pkg__",
    ],
)
EOF
  flagged 0
}

@test "a cycle in the table is flagged" {
  printf 'low: top\nmid: low\ntop: low mid\n' >"$scratch/layers.txt"
  flagged 1 "low is on a cycle" "top is on a cycle"
}

@test "a package in no layer is flagged" {
  mkdir -p "$scratch/stray"
  printf 'cc_library(name = "stray")\n' >"$scratch/stray/BUILD"
  flagged 1 "stray/BUILD: package //stray is in no layer"
}

@test "an include into another package's internal/ is flagged" {
  printf '#include "top/internal/secret.h"\n' >"$scratch/mid/mid.cc"
  flagged 1 "mid/mid.cc: includes top/internal/secret.h, another package's internal/"
}

@test "a label of another package's internal/ is flagged" {
  printf 'cc_library(\n    name = "mid",\n    deps = ["//top/internal:secret"],\n)\n' >"$scratch/mid/BUILD"
  printf 'mid: low top\ntop: low\nlow:\n' >"$scratch/layers.txt"
  flagged 1 "mid/BUILD: names //top/internal, another package's internal/"
}

@test "a table line the check cannot read is a usage error" {
  printf 'low\n' >"$scratch/layers.txt"
  flagged 2 "want 'PACKAGE: DEP...'"
}
