#!/usr/bin/env bats
# set_df_symbolic on this machine's libibverbs: the copy's own references to
# verbs_open_device and verbs_set_ops bind inside it (as in Ubuntu's
# -Bsymbolic-functions build), where Debian's original binds them to a
# preloaded libverbsemu.so; bad input is one line and exit 1.

setup() {
  tool="$BATS_TEST_DIRNAME/set_df_symbolic"
  shim=$(readlink -f "$BATS_TEST_DIRNAME/../../shim/libverbsemu.so")
  lib=/usr/lib/x86_64-linux-gnu/libibverbs.so.1
  [ -f "$lib" ] || skip "no $lib (tools/bootstrap installs libibverbs)"
  copy="$BATS_TEST_TMPDIR/libibverbs.so.1"
}

# bindings LIBDIR: where libibverbs' references to the two private calls bind
# when a program that links libibverbs loads with the shim preloaded.
bindings() {
  LD_LIBRARY_PATH="$1" LD_DEBUG=bindings LD_PRELOAD="$shim" ibv_devices 2>&1 >/dev/null |
    sed -n "s/.*binding file .*libibverbs.so.1 \[0\] to \(.*\) \[0\]: normal symbol \`\(verbs_open_device\|verbs_set_ops\)'.*/\2 \1/p" | sort
}

@test "Debian's libibverbs binds its private calls to the preloaded shim" {
  run bindings ""
  [ "${#lines[@]}" = 2 ]
  [[ "${lines[0]}" == "verbs_open_device "*libverbsemu.so ]]
  [[ "${lines[1]}" == "verbs_set_ops "*libverbsemu.so ]]
}

@test "the DF_SYMBOLIC copy binds them inside itself" {
  run "$tool" "$lib" "$copy"
  [ "$status" = 0 ]
  [[ "$output" == "DT_FLAGS 0x"*" -> 0x"* ]]
  readelf -d "$copy" | grep -q "(FLAGS).*SYMBOLIC"
  run bindings "$BATS_TEST_TMPDIR"
  [ "${#lines[@]}" = 2 ]
  [ "${lines[0]}" = "verbs_open_device $copy" ]
  [ "${lines[1]}" = "verbs_set_ops $copy" ]
}

@test "not a shared object: one line, exit 1, nothing written" {
  printf 'not an ELF file\n' >"$BATS_TEST_TMPDIR/junk"
  run "$tool" "$BATS_TEST_TMPDIR/junk" "$copy"
  [ "$status" = 1 ]
  [ "${#lines[@]}" = 1 ]
  [[ "$output" == "set_df_symbolic: "*"not a 64-bit little-endian ELF shared object"* ]]
  [ ! -e "$copy" ]
}

@test "wrong arguments: usage, exit 2" {
  run "$tool" only-one
  [ "$status" = 2 ]
  [[ "$output" == usage:* ]]
}
