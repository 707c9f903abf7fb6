// The shim's public front: configuration and the control-path calls it
// replaces. The exported C entry points (shim/exports.cc) are thin
// forwarders to these; tests and the device-boundary benchmark call them
// directly over a fake device. The pieces behind it, one per mechanism:
// registry (contexts, QPs), data_path (ops wrappers), qp_ex (ibv_qp_ex
// wrappers), port_link and pad_sender (bandwidth), wait_policy, counters,
// report.
#ifndef VERBSEMU_SHIM_INTERNAL_ENGINE_H_
#define VERBSEMU_SHIM_INTERNAL_ENGINE_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "emulate/tsc.h"
#include "settings/knobs.h"
#include "shim/internal/counters.h"
#include "shim/internal/port_traffic.h"
#include "shim/internal/report.h"

namespace verbsemu::shim::internal {

// Installs the settings. `error` non-empty: emulation stays off for the
// whole process and the error line is printed once.
void Configure(const Settings& settings, const std::string& error);
// As Configure, with an explicit TSC calibration (tests, benchmarks).
void ConfigureWithCalibration(const Settings& settings,
                              const emulate::TscCalibration& cal);
// Reads VERBSEMU_* with secure_getenv and configures.
void ConfigureFromEnvironment();
// Configures from the environment on first use (the first device opened,
// the first direct-verbs query), unless something configured already. Not
// a constructor: a library's constructor may open a device before the
// shim's own constructor runs.
void EnsureConfigured() noexcept;

// Control path (signatures of the verbs they replace).
ibv_context* OpenDevice(ibv_device* device) noexcept;
ibv_context* VerbsOpenDevice(ibv_device* device, void* private_data) noexcept;
int CloseDevice(ibv_context* context) noexcept;
void VerbsUninitContext(verbs_context* context) noexcept;
// Providers' calls into libibverbs' private ABI, made across the library
// boundary whatever the distribution's link flags: every context a provider
// sets up passes verbs_set_ops (registered and patched there), and every QP
// a provider destroys passes ibv_cmd_destroy_qp (its state retired there),
// whichever handle the application reached libibverbs through.
void VerbsSetOps(verbs_context* context, const void* ops) noexcept;
int CmdDestroyQp(ibv_qp* qp) noexcept;
ibv_qp* CreateQp(ibv_pd* pd, ibv_qp_init_attr* attr) noexcept;
int ModifyQp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask) noexcept;
int DestroyQp(ibv_qp* qp) noexcept;
// UD address handles: classified by VERBSEMU_TOPOLOGY (peer_class.h).
ibv_ah* CreateAh(ibv_pd* pd, ibv_ah_attr* attr) noexcept;
int DestroyAh(ibv_ah* ah) noexcept;
ibv_cq* CreateCq(ibv_context* context, int cqe, void* cq_context,
                 ibv_comp_channel* channel, int comp_vector) noexcept;
int DestroyCq(ibv_cq* cq) noexcept;
int GetCqEvent(ibv_comp_channel* channel, ibv_cq** cq,
               void** cq_context) noexcept;

// Fork support: the child starts with fresh statistics.
void AtForkPrepare();
void AtForkParent();
void AtForkChild();

// Tests: forget every context and QP (no verbs calls), reset statistics,
// and the configuration (the next use reads the environment again).
void ResetForTesting();
// Tests: where the bypass check reads device counters and maps its shared
// segments (port_traffic.h); ResetForTesting restores the defaults.
void SetTrafficPathsForTesting(const TrafficPaths& paths);

// Introspection for tests.
bool GetQpCounters(const ibv_qp* qp, QpCounters* out);
bool IsContextPatched(const ibv_context* context);
size_t LiveQpCount();
// QP states kept after their QP was destroyed (the report's last records
// and states a thread cache still names): bounded under churn.
size_t RetainedQpStateCount();

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_ENGINE_H_
