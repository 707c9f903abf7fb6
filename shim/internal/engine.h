// The shim's engine: per-context and per-QP state, the patched data-path
// functions, padding and pacing, and the report. The exported C entry points
// (shim/exports.cc) are thin forwarders to the functions declared here; tests
// and the device-boundary benchmark call them directly over a fake device.
#ifndef VERBSEMU_SHIM_INTERNAL_ENGINE_H_
#define VERBSEMU_SHIM_INTERNAL_ENGINE_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "emulate/config.h"
#include "emulate/tsc.h"

namespace verbsemu::shim::internal {

// Installs the configuration. `error` non-empty: emulation stays off for the
// whole process and the error line is printed once. Must run before the first
// context is opened (the preload does it in its constructor).
void Configure(const emulate::Config& config, const std::string& error);
// As Configure, with an explicit TSC calibration (tests, benchmarks).
void ConfigureWithCalibration(const emulate::Config& config,
                              const emulate::TscCalibration& cal);
// Reads VERBSEMU_* with secure_getenv and configures.
void ConfigureFromEnvironment();

// Control path (signatures of the verbs they replace).
ibv_context* OpenDevice(ibv_device* device);
ibv_context* VerbsOpenDevice(ibv_device* device, void* private_data);
int CloseDevice(ibv_context* context);
void VerbsUninitContext(verbs_context* context);
ibv_qp* CreateQp(ibv_pd* pd, ibv_qp_init_attr* attr);
int ModifyQp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask);
int DestroyQp(ibv_qp* qp);
ibv_cq* CreateCq(ibv_context* context, int cqe, void* cq_context,
                 ibv_comp_channel* channel, int comp_vector);
int DestroyCq(ibv_cq* cq);
int GetCqEvent(ibv_comp_channel* channel, ibv_cq** cq, void** cq_context);

// Report.
std::string ReportText();
void WriteReport();  // to VERBSEMU_REPORT's destination, if any

// Fork support: the child starts with fresh statistics.
void AtForkPrepare();
void AtForkParent();
void AtForkChild();

// Tests: forget every context and QP (no verbs calls), reset statistics.
void ResetForTesting();

// Introspection for tests.
struct QpCounters {
  uint64_t posts = 0, wrs = 0, bytes = 0, delay_ticks = 0, pad_bytes = 0,
           pad_datagrams = 0, failed_posts = 0;
};
bool GetQpCounters(const ibv_qp* qp, QpCounters* out);
bool IsContextPatched(const ibv_context* context);
size_t LiveQpCount();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_ENGINE_H_
