# shellcheck shell=bash
# Loaded by every in-guest bats suite (`load <path to>/tests/vm/common`).
# Gives each case a log directory of its own (kept under the results
# directory when tests/vm/guest-run sets VM_RESULTS_DIR), skips a case with
# the reason when there is no rxe device, and `flunk`, which fails a case
# with a message and the tails of its logs.
# shellcheck source=tests/vm/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Ports are counted per boot (guest-run) or per bats run (standalone).
export VM_PORT_FILE=${VM_PORT_FILE:-$BATS_RUN_TMPDIR/next-port}
VM_SUITE_LOGDIR=${VM_RESULTS_DIR:-$BATS_RUN_TMPDIR}/logs/$(basename "$BATS_TEST_FILENAME" .bats)

# Per case: its own log directory, named by the case's number in the file.
# A suite that needs more defines its own setup() calling vm_setup.
vm_setup() {
  VM_LOGDIR=$VM_SUITE_LOGDIR/$(printf '%02d' "$BATS_TEST_NUMBER")
  rm -rf "$VM_LOGDIR"
  mkdir -p "$VM_LOGDIR"
  have_rxe || skip "no active rxe port (run inside soft-roce/vm)"
}
setup() { vm_setup; }

# flunk MESSAGE LOG...: prints MESSAGE and the logs' tails, fails the case.
flunk() {
  echo "$1"
  shift
  show_logs "$@"
  return 1
}
