#include "doctor/env_check.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "settings/knobs.h"

namespace verbsemu::doctor {
namespace {

// UCX transports (and aliases) that exist only through mlx5 direct verbs,
// or that post from the GPU.
constexpr std::string_view kMlx5Transports[] = {
    "rc_x", "dc_x", "ud_x", "dc", "dc_mlx5", "rc_mlx5", "ud_mlx5"};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// libfabric's and NVSHMEM's reading of a boolean variable.
bool Truthy(std::string_view v) {
  const std::string l = Lower(v);
  return l == "1" || l == "y" || l == "yes" || l == "on" || l == "true";
}

// One problem per transport UCX_TLS names that the shim cannot emulate. A
// leading '^' lists transports to leave out: none is then asked for.
void CheckUcxTls(const SystemView& view, Findings& out) {
  const std::string tls = view.GetEnv("UCX_TLS").value_or("");
  if (tls.empty() || tls[0] == '^') return;
  const bool allow =
      view.GetEnv("VERBSEMU_DIRECT_VERBS").value_or("") == "allow";
  size_t begin = 0;
  while (begin <= tls.size()) {
    size_t end = tls.find(',', begin);
    if (end == std::string::npos) end = tls.size();
    // "ud_verbs:aux" -> "ud_verbs"
    std::string name = tls.substr(begin, end - begin);
    name = name.substr(0, name.find(':'));
    begin = end + 1;
    if (name == "rc_gda") {
      out.push_back(Finding::Problem(
          "UCX_TLS names rc_gda: that transport posts from the GPU, which no "
          "shim can emulate"));
    } else if (std::find(std::begin(kMlx5Transports), std::end(kMlx5Transports),
                         name) != std::end(kMlx5Transports)) {
      out.push_back(Finding::Problem(
          "UCX_TLS names " + name + ": " +
          (allow ? "it posts through mlx5 direct verbs, which are not "
                   "emulated (VERBSEMU_DIRECT_VERBS=allow)"
                 : "verbsemu hides mlx5 direct verbs, so UCX has no " + name +
                       " transport and fails or falls back to another "
                       "(name rc_verbs,ud_verbs instead)")));
    }
  }
}

void CheckBypassSwitches(const SystemView& view, Findings& out) {
  if (Truthy(view.GetEnv("FI_EFA_USE_DATA_PATH_DIRECT").value_or(""))) {
    out.push_back(Finding::Problem(
        "FI_EFA_USE_DATA_PATH_DIRECT is on: libfabric's EFA provider writes "
        "work requests to the device itself, past every verb, so nothing is "
        "emulated (unset it or set 0)"));
  }
  if (Truthy(view.GetEnv("NVSHMEM_IB_ENABLE_IBGDA").value_or(""))) {
    out.push_back(Finding::Problem(
        "NVSHMEM_IB_ENABLE_IBGDA is on: NVSHMEM posts from the GPU "
        "(GPU-initiated RDMA), which no shim can emulate"));
  }
  // NCCL's GIN (device API): 3 is its GDAKI backend, the GPU posting;
  // 2 its CPU proxy (src/transport/net_ib/gin.cc, include/nccl_device).
  if (view.GetEnv("NCCL_GIN_TYPE").value_or("") == "3") {
    out.push_back(Finding::Problem(
        "NCCL_GIN_TYPE=3 selects NCCL's GDAKI backend: the GPU posts its "
        "RDMA itself, which no shim can emulate (2 selects the CPU proxy)"));
  }
}

// Every VERBSEMU_* setting the shim would refuse, each in the shim's words.
void CheckKnobs(const SystemView& view, Findings& out) {
  for (const shim::Knob& k : shim::Knobs()) {
    const auto value = view.GetEnv(std::string(k.env));
    if (!value) continue;
    const std::string err = shim::ValidateKnob(k, *value);
    if (!err.empty()) {
      out.push_back(Finding::Problem(
          err + " (from the environment: the shim would run unemulated)"));
    }
  }
}

}  // namespace

Findings CheckEnvironment(const SystemView& view) {
  Findings out;
  CheckUcxTls(view, out);
  CheckBypassSwitches(view, out);
  CheckKnobs(view, out);
  if (out.empty()) {
    out.push_back(Finding::Ok(
        "environment: no setting takes traffic past the shim, every "
        "VERBSEMU_* value is accepted"));
  }
  return out;
}

}  // namespace verbsemu::doctor
