# shellcheck shell=bash
# For bats suites (`load bazel_detached`): bazel run from a bats case or
# setup_file. The bazel server the first command starts outlives the test and
# keeps every descriptor it inherited: one of bats' pipes (3 and up) left open
# there makes bats wait for the server's end (three idle hours) after its last
# case, as a fresh machine's first bazel command does. So bazel runs with
# descriptors 0-2 only.

# bazel_detached ARGS...: bazel ARGS with every descriptor above 2 closed.
bazel_detached() {
  (
    local fd
    for fd in /proc/"$BASHPID"/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
    done
    exec bazel "$@"
  )
}
