#!/usr/bin/env bats
# The docs a newcomer starts from stay true to the tree: docs/README.md
# lists every page, and every file architecture.md and extending.md name
# exists. Each check is also shown failing on a scratch copy.
# Run from the repository: bats tests/docs.bats (tools/test's lint stage).

setup() {
  repo=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
}

# unlisted DIR: the pages of DIR/docs that DIR/docs/README.md does not link.
unlisted() {
  local page name
  for page in "$1"/docs/*.md; do
    name=${page##*/}
    [ "$name" = README.md ] && continue
    grep -q "](${name}[)#]" "$1/docs/README.md" || echo "$name"
  done
}

# missing DIR PAGE...: paths the pages name in backquotes (a/b.ext, or a
# directory a/b/) that start at a top-level directory of DIR, and that DIR
# does not have.
missing() {
  local dir=$1 path
  shift
  # shellcheck disable=SC2016 # backquotes of Markdown, not the shell's
  grep -oh '`[A-Za-z0-9_.-]*/[A-Za-z0-9_./-]*`' "$@" | tr -d '`' | sort -u |
    while read -r path; do
      case "$path" in //*) continue ;; esac
      [ -d "$dir/${path%%/*}" ] || continue
      [ -e "$dir/$path" ] || echo "$path"
    done
}

@test "docs/README.md links every page of docs/" {
  run unlisted "$repo"
  [ "$status" = 0 ]
  [ -z "$output" ] || { echo "not in docs/README.md: $output"; return 1; }
}

@test "a page docs/README.md does not link is found" {
  local scratch=$BATS_TEST_TMPDIR/tree
  mkdir -p "$scratch/docs"
  cp "$repo"/docs/*.md "$scratch/docs/"
  echo "# new" >"$scratch/docs/new-page.md"
  run unlisted "$scratch"
  [ "$output" = new-page.md ]
}

@test "every file architecture.md and extending.md name exists" {
  run missing "$repo" "$repo/docs/architecture.md" "$repo/docs/extending.md"
  [ "$status" = 0 ]
  [ -z "$output" ] || { echo "named but not in the tree: $output"; return 1; }
}

@test "a file a page names that the tree lacks is found" {
  local page=$BATS_TEST_TMPDIR/page.md
  # shellcheck disable=SC2016 # backquotes of Markdown, not the shell's
  printf 'Edit `settings/knobs.cc` and `shim/internal/no_such_table.h`.\n' >"$page"
  run missing "$repo" "$page"
  [ "$output" = shim/internal/no_such_table.h ]
}
