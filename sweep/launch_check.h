// The sweep sets the shim's variables in the environment of the command it
// runs; a command that starts ranks elsewhere must carry them there. srun
// and MPICH's Hydra forward the whole environment unless told not to; Open
// MPI's mpirun forwards only what `-x` names. Launching stays the job of
// mpirun and srun: this only says which flags are missing.
#ifndef VERBSEMU_SWEEP_LAUNCH_CHECK_H_
#define VERBSEMU_SWEEP_LAUNCH_CHECK_H_

#include <string>
#include <vector>

namespace verbsemu::sweep {

enum class MpiFlavour { kOpenMpi, kHydra, kUnknown };

// From `mpirun --version` output, or the resolved path of the program.
MpiFlavour FlavourFromText(const std::string& text);

// "" when `command` forwards every variable in `vars` to its ranks (or is
// no launcher), else one line naming the flags to add. `flavour` matters
// for mpirun/mpiexec only; `slurm_export_env` is $SLURM_EXPORT_ENV.
std::string ForwardingProblem(const std::vector<std::string>& command,
                              const std::vector<std::string>& vars,
                              MpiFlavour flavour,
                              const std::string& slurm_export_env);

// True when argv[0] is mpirun, mpiexec or orterun (any directory).
bool IsMpiLauncher(const std::vector<std::string>& command);

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_LAUNCH_CHECK_H_
