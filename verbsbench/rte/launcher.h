// Whether a launcher (mpirun, srun, a PMI or PMIx server) started this
// process, read from the environment the launcher exports, and the choice
// of rendezvous that follows from it (--rte auto). Reads variables only:
// MPI is initialised later, and only when the answer is MPI.
#ifndef VERBSBENCH_RTE_LAUNCHER_H_
#define VERBSBENCH_RTE_LAUNCHER_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "verbsbench/options.h"

namespace verbsbench::rte {

// One launcher's variables: its rank, and its process count where it
// exports one (nullptr: none); with size_required, the rank alone is no
// launch. docs/verbsbench.md lists the same table.
struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* size;
  bool size_required;
};

// Looked at in this order; the first whose rank variable is set decides.
inline constexpr LauncherVariables kLaunchers[] = {
    {"Open MPI mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", false},
    {"PMIx (srun --mpi=pmix, prterun)", "PMIX_RANK", nullptr, false},
    {"PMI (MPICH Hydra, srun --mpi=pmi2)", "PMI_RANK", "PMI_SIZE", false},
    // A batch script's own shell has SLURM_PROCID and SLURM_NTASKS too;
    // only srun's tasks have a step.
    {"Slurm srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", true},
};

struct Launch {
  std::string launcher;  // kLaunchers[i].launcher
  std::string variable;  // the rank variable that was set
  int rank = 0;
  int size = -1;  // -1: the launcher exports no count
  nlohmann::json ToJson() const;
};

using Getenv = std::function<const char*(const char*)>;
// The process's own environment.
Getenv ProcessEnvironment();

// The launcher that started this process, if any. A launch of one process
// (size 1) is a plain run. Throws std::invalid_argument with one line when
// a variable is set but is no process number or count.
std::optional<Launch> DetectLauncher(const Getenv& env);

// --rte auto → mpi when a launcher started several processes and no HOST is
// given (a HOST means TCP peers, even under srun), else tcp. tcp and mpi
// stay as they are.
Rte ResolveRte(Rte requested, bool has_host, const Getenv& env);

// The command line's rendezvous: options.rte resolved, and under MPI with
// --peers not given, peers = 0 (the launcher's ranks − 1).
void ApplyLauncher(Options& options, bool peers_given, const Getenv& env);

}  // namespace verbsbench::rte

#endif  // VERBSBENCH_RTE_LAUNCHER_H_
