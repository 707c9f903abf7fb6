#include "sweep/launch_check.h"

#include <algorithm>
#include <string_view>

namespace verbsemu::sweep {
namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The variable names in a comma-separated list ("ALL,LD_PRELOAD=x,FOO").
bool ListHas(std::string_view list, std::string_view var) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string_view item = list.substr(start, comma - start);
    item = item.substr(0, item.find('='));
    if (item == var) return true;
    start = comma + 1;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& items,
                   const std::string& prefix, const std::string& sep) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += sep;
    out += prefix;
    out += i;
  }
  return out;
}

std::string OpenMpiProblem(const std::vector<std::string>& command,
                           const std::vector<std::string>& vars) {
  std::vector<std::string> missing;
  for (const std::string& var : vars) {
    bool forwarded = false;
    for (size_t i = 1; i + 1 < command.size(); ++i) {
      if (command[i] == "-x" &&
          command[i + 1].substr(0, command[i + 1].find('=')) == var) {
        forwarded = true;
      }
    }
    if (!forwarded) missing.push_back(var);
  }
  if (missing.empty()) return "";
  return "Open MPI's mpirun forwards only the variables -x names, so ranks "
         "on other nodes would run without the shim or its settings: add " +
         Joined(missing, "-x ", " ") + " to the mpirun command";
}

std::string HydraProblem(const std::vector<std::string>& command,
                         const std::vector<std::string>& vars) {
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a == "-envnone" || a == "-genvnone") {
      return "mpiexec " + a +
             " keeps the shim's variables from the ranks: drop it, or "
             "list them with -genvlist " +
             Joined(vars, "", ",");
    }
    if ((a == "-envlist" || a == "-genvlist") && i + 1 < command.size()) {
      std::vector<std::string> missing;
      for (const std::string& var : vars) {
        if (!ListHas(command[i + 1], var)) missing.push_back(var);
      }
      if (!missing.empty()) {
        return "mpiexec " + a + " forwards only what it lists: add " +
               Joined(missing, "", ",") + " to it";
      }
    }
  }
  return "";
}

std::string SrunProblem(const std::vector<std::string>& command,
                        const std::vector<std::string>& vars,
                        const std::string& slurm_export_env) {
  std::string exports = slurm_export_env;
  std::string where = "SLURM_EXPORT_ENV";
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& a = command[i];
    if (a.starts_with("--export=")) {
      exports = a.substr(9);
      where = "srun --export";
    } else if (a == "--export" && i + 1 < command.size()) {
      exports = command[i + 1];
      where = "srun --export";
    }
  }
  if (exports.empty() || ListHas(exports, "ALL")) return "";
  std::vector<std::string> missing;
  for (const std::string& var : vars) {
    if (!ListHas(exports, var)) missing.push_back(var);
  }
  if (missing.empty()) return "";
  return where + "=" + exports +
         " keeps the shim's variables from the ranks: use --export=ALL, or "
         "add " +
         Joined(missing, "", ",") + " to the list";
}

}  // namespace

MpiFlavour FlavourFromText(const std::string& text) {
  for (const char* open :
       {"Open MPI", "OpenRTE", "openmpi", "orterun", "prterun"}) {
    if (text.find(open) != std::string::npos) return MpiFlavour::kOpenMpi;
  }
  for (const char* hydra : {"HYDRA", "mpich", "MPICH", "hydra", "Intel"}) {
    if (text.find(hydra) != std::string::npos) return MpiFlavour::kHydra;
  }
  return MpiFlavour::kUnknown;
}

bool IsMpiLauncher(const std::vector<std::string>& command) {
  if (command.empty()) return false;
  const std::string name = Basename(command[0]);
  return name.starts_with("mpirun") || name.starts_with("mpiexec") ||
         name == "orterun";
}

std::string ForwardingProblem(const std::vector<std::string>& command,
                              const std::vector<std::string>& vars,
                              MpiFlavour flavour,
                              const std::string& slurm_export_env) {
  if (command.empty()) return "";
  if (Basename(command[0]) == "srun") {
    return SrunProblem(command, vars, slurm_export_env);
  }
  if (!IsMpiLauncher(command)) return "";
  switch (flavour) {
    case MpiFlavour::kOpenMpi:
      return OpenMpiProblem(command, vars);
    case MpiFlavour::kHydra:
      return HydraProblem(command, vars);
    case MpiFlavour::kUnknown:
      break;  // the caller says it could not check
  }
  return "";
}

}  // namespace verbsemu::sweep
