#!/usr/bin/env bats
# The verbsemu command's subcommands come from one table: --help lists
# each, an unknown one is refused in one line naming them all (exit 2), and
# no subcommand at all prints the usage on stderr (exit 2); run, env and
# knobs print their own --help, and refuse a bad flag in one line (exit 2).

setup() {
  verbsemu=$(readlink -f "$BATS_TEST_DIRNAME/../shim/verbsemu")
}

@test "--help lists every subcommand and exits 0" {
  run "$verbsemu" --help
  [ "$status" = 0 ]
  local command
  for command in run env knobs sweep doctor shm-clean; do
    [[ "$output" == *"verbsemu $command "* ]] || { echo "no $command in: $output"; return 1; }
  done
}

@test "an unknown subcommand is one line naming every known one, exit 2" {
  run "$verbsemu" frob
  [ "$status" = 2 ]
  [ "$output" = "verbsemu: unknown command 'frob' (expected run, env, knobs, sweep, doctor or shm-clean)" ]
}

@test "no subcommand prints the usage and exits 2" {
  run "$verbsemu"
  [ "$status" = 2 ]
  [[ "${lines[0]}" == "usage: verbsemu run "* ]]
}

@test "run, env and knobs --help print their usage and options, exit 0" {
  local command
  for command in run env knobs; do
    run "$verbsemu" "$command" --help
    [ "$status" = 0 ]
    [[ "${lines[0]}" == "usage: verbsemu $command "* ]] || { echo "$output"; return 1; }
    [[ "$output" == *"--format "* ]] || { echo "no --format in: $output"; return 1; }
  done
  run "$verbsemu" run -h
  [ "$status" = 0 ]
  [[ "$output" == *"--latency D "*"VERBSEMU_LATENCY"* ]]
}

@test "a bad launcher flag is one line naming it, exit 2" {
  run "$verbsemu" run --latency fast -- true
  [ "$status" = 2 ]
  [ "${#lines[@]}" = 1 ]
  [[ "$output" == "verbsemu: --latency: VERBSEMU_LATENCY='fast' is not accepted"* ]]
  run "$verbsemu" env --speed 1
  [ "$status" = 2 ]
  [ "$output" = "verbsemu: unrecognised option '--speed' (see verbsemu env -h)" ]
  run "$verbsemu" run --latency 1us
  [ "$status" = 2 ]
  [ "$output" = "verbsemu: run: no command given after --" ]
}
