// The shim's report: per device and per QP what was posted, delayed and
// padded, and the shim's own sampled cost; written at exit and, with
// VERBSEMU_REPORT_SIGNAL, on request.
#ifndef VERBSEMU_SHIM_INTERNAL_REPORT_H_
#define VERBSEMU_SHIM_INTERNAL_REPORT_H_

#include <infiniband/verbs.h>

#include <string>
#include <vector>

namespace verbsemu::shim::internal {

// `warnings`: lines WriteReport also prints as warnings (a bypass).
std::string ReportText(std::vector<std::string>* warnings = nullptr);
void WriteReport();  // to VERBSEMU_REPORT's destination, if any
// Arms the report signal with the first emulated device (again in a forked
// child); an application that handles the signal itself keeps it. Caller
// holds E().mu.
void ArmReportSignalLocked();
// "RC", "UD", "UC", "DRIVER" (EFA's SRD, mlx5's DC) or "other".
const char* QpTypeName(ibv_qp_type type);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_REPORT_H_
