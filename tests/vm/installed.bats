#!/usr/bin/env bats
# The built package as a site installs it: inside a fresh Debian 12 root with
# verbsemu_*.deb installed by apt (tools/internal/installed_root), booted as
# the test bed's root (soft-roce/vm --root ROOT) and run in it, so every
# program, library and manual page is the package's or Debian's, none of the
# build tree's. tools/test runs it (stage installed).

load common

@test "the installed verbsemu answers --version and names the installed shim" {
  [ "$(command -v verbsemu)" = /usr/bin/verbsemu ]
  run verbsemu --version
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "verbsemu "* ]]
  [[ "${lines[1]}" == "shim /usr/lib/verbsemu/libverbsemu.so: "* ]]
}

# The suites booted with this one (tests/vm/run --installed) find their
# programs through tests/vm/lib.sh: each must resolve to the package's, or
# the stage would test the build tree under the package's name.
@test "the suites' programs under test are the installed package's" {
  [ "$VERBSEMU" = /usr/bin/verbsemu ] || flunk "VERBSEMU is '$VERBSEMU'"
  [ "$(vm_shim)" = /usr/lib/verbsemu/libverbsemu.so ] || flunk "the shim is '$(vm_shim)'"
  local p
  for p in verbsbench lopfit loggpfit contentionfit; do
    [ "$(vm_program "$p")" = "/usr/bin/$p" ] || flunk "$p is '$(vm_program "$p")'"
    [ -x "/usr/bin/$p" ] || flunk "the package installed no /usr/bin/$p"
  done
  # The test helpers are the build tree's: the package has none.
  if [ "$VERBSEMU_HELPERS" = /usr/bin ] || [ ! -x "$VERBSEMU_HELPERS/dlopen_probe" ]; then
    flunk "no test helpers in '$VERBSEMU_HELPERS'"
  fi
}

@test "man verbsemu and man 7 verbsemu find the installed pages" {
  run man -w verbsemu
  [ "$status" -eq 0 ]
  [[ "$output" == /usr/share/man/man1/verbsemu.1* ]]
  run man -w 7 verbsemu
  [ "$status" -eq 0 ]
  [[ "$output" == /usr/share/man/man7/verbsemu.7* ]]
  # The settings page lists the knobs.
  MANPAGER="cat" man 7 verbsemu >"$VM_LOGDIR/verbsemu.7.txt" 2>&1
  grep -q VERBSEMU_LATENCY "$VM_LOGDIR/verbsemu.7.txt" ||
    flunk "man 7 verbsemu lists no VERBSEMU_LATENCY" "$VM_LOGDIR/verbsemu.7.txt"
}

@test "the installed launcher preloads the installed shim" {
  run verbsemu env --latency 20us
  [ "$status" -eq 0 ]
  [[ "$output" == *"LD_PRELOAD=/usr/lib/verbsemu/libverbsemu.so"* ]]
}

@test "verbsemu run --latency 20us -- ib_send_lat: emulated by the installed shim" {
  local port row
  port=$(new_port)
  # run_pair splits its arguments at "--": the launcher's own "--" inside
  # a shell line (its $0 and $@ expand there, not here).
  # shellcheck disable=SC2016
  local under='verbsemu run --latency 20us --report "$0" -- "$@"'
  run_pair installed 180 "tcp_listening $port" \
    -- sh -c "$under" "$VM_LOGDIR/report.server" \
    ib_send_lat -d "$SERVER_DEV" -x "$SERVER_GID" -p "$port" -s 64 -n 1000 \
    -- sh -c "$under" "$VM_LOGDIR/report.client" \
    ib_send_lat -d "$CLIENT_DEV" -x "$CLIENT_GID" -p "$port" -s 64 -n 1000 "$SERVER_ADDR" ||
    flunk "did not complete" "$VM_LOGDIR/installed.server" "$VM_LOGDIR/installed.client"
  row=$(perftest_row "$VM_LOGDIR/installed.client")
  echo "ib_send_lat under the installed shim at +20 us: $row"
  # Both ends add 20 us: t_min (half the round trip) at least 20 us.
  echo "$row" | awk '$1 == 64 && $3 >= 20 {ok = 1} END {exit !ok}' ||
    flunk "t_min below the 20 us added: '$row'" "$VM_LOGDIR/installed.client"
  for end in server client; do
    grep -q "^verbsemu report (pid [0-9]*): latency +20" "$VM_LOGDIR/report.$end" ||
      flunk "no report from the $end's shim" "$VM_LOGDIR/report.$end"
    grep -q "WARNING" "$VM_LOGDIR/report.$end" &&
      flunk "the $end's shim warned" "$VM_LOGDIR/report.$end"
  done
  true
}
