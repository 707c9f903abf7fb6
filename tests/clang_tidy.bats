#!/usr/bin/env bats
# Every production C++ file (not the tests, the fuzz targets or third_party)
# is clean under the repository's .clang-tidy, with compile_flags.txt and
# the MPI headers' path; and the check itself can fail: a finding in a
# scratch file is flagged. Left out: shim/exports.cc, whose noexcept
# definitions of libibverbs' functions g++ accepts and clang rejects.
# Run from the repository: bats tests/clang_tidy.bats (tools/test does).
# About 8 minutes on 2 cores.

load bazel_detached

setup_file() {
  repo=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  export repo
  # The generated version headers that some files include.
  cd "$repo" || return 1
  bazel_detached build --disk_cache="${VERBSEMU_CACHE:-$HOME/.cache/verbsemu}/bazel-disk" \
    //version:version_h //verbsbench/rte:version_h >&2
}

setup() {
  mpi_flags=()
  local f
  for f in $(pkg-config --cflags-only-I ompi-c); do mpi_flags+=("--extra-arg=$f"); done
}

@test "every production C++ file is clang-tidy clean" {
  cd "$repo" || return 1
  local files=()
  mapfile -t files < <(git ls-files '*.cc' | grep -v -e '_test\.cc$' -e '_fuzz\.cc$' \
    -e '^third_party/' -e '^shim/exports\.cc$')
  # The repository has about 200; a handful means the listing broke.
  [ "${#files[@]}" -ge 100 ] || { echo "only ${#files[@]} files found"; return 1; }
  printf '%s\n' "${files[@]}" |
    xargs -P "$(nproc)" -n 8 clang-tidy --quiet --warnings-as-errors='*' "${mpi_flags[@]}" \
      >"$BATS_TEST_TMPDIR/tidy.out" 2>"$BATS_TEST_TMPDIR/tidy.err" || {
    grep -E 'warning:|error:' "$BATS_TEST_TMPDIR/tidy.out"
    return 1
  }
}

@test "a clang-tidy finding is flagged" {
  local scratch=$BATS_TEST_TMPDIR/scratch
  mkdir -p "$scratch"
  cd "$scratch"
  cp "$repo/.clang-tidy" "$repo/compile_flags.txt" .
  printf 'int* f() { return 0; }\n' >bad.cc
  printf 'int* f() { return nullptr; }\n' >good.cc
  clang-tidy --quiet --warnings-as-errors='*' good.cc
  run clang-tidy --quiet --warnings-as-errors='*' bad.cc
  [ "$status" != 0 ] || { echo "clang-tidy passed a finding"; return 1; }
  echo "$output" | grep -q "modernize-use-nullptr"
}
