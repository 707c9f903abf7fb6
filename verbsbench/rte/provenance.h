// Where a result comes from: the tool's version (git describe, stamped at
// build time), the command line, the UTC time, and the system of each rank
// (host, pid, kernel, rdma-core, CPU), so a result names its ranks' hosts
// and can be traced to the build and machines that made it.
#ifndef VERBSBENCH_RTE_PROVENANCE_H_
#define VERBSBENCH_RTE_PROVENANCE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verbsbench::rte {

// This process: {"host","pid","kernel","arch","rdma_core","cpu"}.
nlohmann::json LocalIdentity();

// The run: {"version","argv","time_utc"} with LocalIdentity's fields and
// "rte" (how the ranks met; see Team).
nlohmann::json Provenance(const std::vector<std::string>& argv,
                          const nlohmann::json& rte);

// `git describe --always --dirty` of the tree the binary was built from
// ("unknown" when built without Bazel's workspace status).
const char* Version();

// "…/libibverbs.so.1.14.44.0" → "44.0" (rdma-core's release is the
// library's file name after the ABI version); "" when the name has none.
std::string RdmaCoreFromLibraryPath(const std::string& path);
// The first "model name" of /proc/cpuinfo's text; "" when there is none.
std::string CpuModelFromCpuinfo(const std::string& text);

}  // namespace verbsbench::rte

#endif  // VERBSBENCH_RTE_PROVENANCE_H_
