#!/usr/bin/env bats
# tools/install's layout (tools/internal/install_tree) into a temporary
# prefix from the built programs, and what the installed tree does: every
# program's --version, the launcher finding the installed shim from its own
# real path, the manual pages. A Bazel test (//tests:install_test), run from
# its runfiles, where the built programs sit at their package paths.

setup_file() {
  root=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
  export root
  export prefix=/opt/verbsemu-test
  export stage=$BATS_FILE_TMPDIR/stage
  export tree=$stage$prefix
  "$root/tools/internal/install_tree" --built "$root" --source "$root" \
    --prefix "$prefix" --destdir "$stage" >"$BATS_FILE_TMPDIR/install.log" 2>&1 ||
    { cat "$BATS_FILE_TMPDIR/install.log"; return 1; }
}

load ../bazel/expect_error

@test "tools/install refuses bad arguments with one line, before building" {
  expect_error "--prefix DIR is required" "$root/tools/install"
  expect_error "--prefix must be an absolute path, not 'usr'" "$root/tools/install" --prefix usr
  expect_error "unknown option '--prefx'" "$root/tools/install" --prefx /usr
  expect_error "--destdir needs a value" "$root/tools/install" --prefix /usr --destdir
}

@test "a missing built program is named with the target that builds it" {
  mkdir -p "$BATS_TEST_TMPDIR/empty"
  expect_error "build //shim:verbsemu" "$root/tools/internal/install_tree" \
    --built "$BATS_TEST_TMPDIR/empty" --source "$root" --prefix /usr --destdir "$BATS_TEST_TMPDIR/d"
}

@test "the tree: programs, the shim stripped with a debug link, pages, docs" {
  local f
  for f in bin/verbsemu bin/verbsbench bin/lopfit bin/loggpfit bin/contentionfit; do
    [ -x "$tree/$f" ] || { echo "no $f"; return 1; }
  done
  f=$tree/lib/verbsemu/libverbsemu.so
  ! readelf -S "$f" | grep -q '\.debug_info' || { echo "$f is not stripped"; return 1; }
  readelf -p .gnu_debuglink "$f" | grep -q 'libverbsemu.so.debug'
  # gdb's layout: the debug directory, then the file's own path.
  readelf -S "$tree/lib/debug$prefix/lib/verbsemu/libverbsemu.so.debug" | grep -q '\.debug_line'
  for f in man1/verbsemu.1 man1/verbsbench.1 man1/lopfit.1 man1/loggpfit.1 man1/contentionfit.1 man7/verbsemu.7; do
    [ -s "$tree/share/man/$f" ] || { echo "no $f"; return 1; }
  done
  [ -s "$tree/share/doc/verbsemu/README.md" ]
  [ -s "$tree/share/doc/verbsemu/docs/shim.md" ]
}

@test "--no-strip: the programs and the shim as built, no debug directory (a packager strips)" {
  local plain=$BATS_TEST_TMPDIR/plain f
  "$root/tools/internal/install_tree" --built "$root" --source "$root" \
    --prefix "$prefix" --destdir "$plain" --no-strip >"$BATS_TEST_TMPDIR/log" 2>&1 ||
    { cat "$BATS_TEST_TMPDIR/log"; return 1; }
  for f in bin/verbsemu lib/verbsemu/libverbsemu.so; do
    readelf -S "$plain$prefix/$f" | grep -q '\.debug_info' || { echo "$f was stripped"; return 1; }
    ! readelf -S "$plain$prefix/$f" | grep -q '\.gnu_debuglink' || { echo "$f has a debug link"; return 1; }
  done
  [ ! -e "$plain$prefix/lib/debug" ] || { echo "lib/debug was written"; return 1; }
  [ -s "$plain$prefix/share/man/man1/verbsemu.1" ]
}

# The table the test bed's suites find their programs by (tests/vm/lib.sh
# vm_program): each program installed in bin/ and built where it says.
@test "--programs lists every installed program with its built path" {
  local name path n=0
  while read -r name path; do
    n=$((n + 1))
    [ -x "$tree/bin/$name" ] || { echo "no bin/$name"; return 1; }
    [ -x "$root/$path" ] || { echo "$name: nothing built at $path"; return 1; }
  done < <("$root/tools/internal/install_tree" --programs)
  [ "$n" = "$(find "$tree/bin" -type f | wc -l)" ] || { echo "$n listed, bin/ has others"; ls "$tree/bin"; return 1; }
}

@test "every installed program prints one version line and exits 0" {
  local p out
  for p in verbsemu verbsbench lopfit loggpfit contentionfit; do
    out=$("$tree/bin/$p" --version 2>/dev/null | head -n 1)
    [[ "$out" =~ ^$p\ [0-9]+\.[0-9]+[^\ ]*\ \(git\ [^\ ,]+,\ rdma-core\ [0-9.]+\ built\ against\)$ ]] ||
      { echo "$p: '$out'"; return 1; }
  done
}

@test "the installed launcher names the installed shim and its version, without a warning" {
  local out err
  out=$("$tree/bin/verbsemu" --version 2>"$BATS_TEST_TMPDIR/err")
  err=$(cat "$BATS_TEST_TMPDIR/err")
  [ -z "$err" ] || { echo "stderr: $err"; return 1; }
  [ "$(printf '%s\n' "$out" | sed -n 2p)" = \
    "shim $tree/lib/verbsemu/libverbsemu.so: $(printf '%s\n' "$out" | head -n 1 | cut -d' ' -f2-)" ] ||
    { echo "$out"; return 1; }
}

@test "the installed launcher warns when the shim beside it is another build" {
  local copy=$BATS_TEST_TMPDIR/copy out
  cp -r "$tree" "$copy"
  LC_ALL=C sed -i 's/verbsemu-shim-version=[0-9]/verbsemu-shim-version=X/' "$copy/lib/verbsemu/libverbsemu.so"
  out=$("$copy/bin/verbsemu" --version 2>&1 >/dev/null)
  [[ "$out" == *"warning: the shim is X"* ]] || { echo "$out"; return 1; }
}

@test "the installed launcher preloads the installed shim, also through a symlink" {
  local want="LD_PRELOAD=$tree/lib/verbsemu/libverbsemu.so"
  [ "$(env -u VERBSEMU_LIBRARY -u LD_PRELOAD "$tree/bin/verbsemu" env | head -n 1)" = "$want" ]
  mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
  ln -s "$tree/bin/verbsemu" "$BATS_TEST_TMPDIR/elsewhere/verbsemu"
  [ "$(env -u VERBSEMU_LIBRARY -u LD_PRELOAD "$BATS_TEST_TMPDIR/elsewhere/verbsemu" env | head -n 1)" = "$want" ]
}

@test "VERBSEMU_LIBRARY still overrides the installed shim" {
  cp "$tree/lib/verbsemu/libverbsemu.so" "$BATS_TEST_TMPDIR/other.so"
  [ "$(VERBSEMU_LIBRARY="$BATS_TEST_TMPDIR/other.so" "$tree/bin/verbsemu" env | head -n 1)" = \
    "LD_PRELOAD=$BATS_TEST_TMPDIR/other.so" ]
}

@test "every page renders without a groff warning, and man reads it" {
  local page warnings
  for page in "$tree"/share/man/man*/*; do
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || { echo "$page: $warnings"; return 1; }
    MANPAGER=cat MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q '^NAME' ||
      { echo "man -l $page shows no NAME"; return 1; }
  done
}

@test "verbsemu(7) names every setting the launcher lists" {
  local vars var
  mapfile -t vars < <("$tree/bin/verbsemu" knobs | grep -o 'VERBSEMU_[A-Z_]*' | sort -u)
  [ "${#vars[@]}" -ge 10 ] || { echo "only ${#vars[@]} settings listed"; return 1; }
  for var in "${vars[@]}"; do
    grep -q "^\.BI $var = " "$tree/share/man/man7/verbsemu.7" || { echo "no $var"; return 1; }
  done
}

@test "verbsemu(1) has every subcommand of --help in its synopsis, and sweep's flags" {
  local subs sub synopsis
  mapfile -t subs < <("$tree/bin/verbsemu" --help | grep -oE '^(usage:)? +verbsemu [a-z-]+' | awk '{print $NF}')
  [ "${#subs[@]}" -ge 5 ] || { echo "only ${#subs[@]} subcommands: ${subs[*]}"; return 1; }
  synopsis=$(MANPAGER=cat MANWIDTH=200 man -l "$tree/share/man/man1/verbsemu.1" 2>/dev/null |
    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p')
  for sub in "${subs[@]}"; do
    grep -q "verbsemu $sub" <<<"$synopsis" || { echo "no $sub in: $synopsis"; return 1; }
  done
  MANPAGER=cat MANWIDTH=200 man -l "$tree/share/man/man1/verbsemu.1" 2>/dev/null | grep -q -- '--repeat N'
}
