#include "doctor/provider_limits.h"

namespace verbsemu::doctor {
namespace {

struct DriverProvider {
  std::string_view driver;  // a prefix of the kernel driver's name
  std::string_view provider;
};

// Kernel driver -> rdma-core provider, by prefix of the driver's name: hns
// has several (hns3, hns_roce_hw_v2), and drivers on the auxiliary bus are
// named MODULE.NAME (irdma.gen_2, mlx5_ib.rdma, bnxt_re.rdma).
constexpr DriverProvider kDrivers[] = {
    {"mlx5", "mlx5"}, {"efa", "efa"},   {"irdma", "irdma"}, {"bnxt", "bnxt_re"},
    {"hns", "hns"},   {"mana", "mana"}, {"rxe", "rxe"},     {"siw", "siw"},
};

struct Limit {
  std::string_view provider;
  std::string_view text;
};

// One row per limit, grouped by provider.
constexpr Limit kLimits[] = {
    {"iWARP",
     "iWARP QPs are connected without an address vector: --bw-mode pad "
     "paces them instead (pace needs the port's real rate: "
     "--link-bandwidth where it is not known)"},
    {"mlx5",
     "mlx5dv and DEVX direct verbs are hidden by default "
     "(VERBSEMU_DIRECT_VERBS=off): UCX falls back to rc_verbs/ud_verbs, so "
     "DC, hardware tag matching and UCX's mlx5 transports are not in the "
     "emulated run"},
    {"mlx5",
     "mlx5 reports 10 and 40 Gb Ethernet links as QDR 1X/4X (8 and 32 Gb/s): "
     "with --bandwidth N% give the real rate with --link-bandwidth"},
    {"efa",
     "SRD QPs are emulated through efadv_create_qp_ex; libfabric's direct "
     "data path must stay off (FI_EFA_USE_DATA_PATH_DIRECT=0, which verbsemu "
     "run exports)"},
    {"efa",
     "SRD QPs have no connected address vector: --bw-mode pad paces them "
     "instead"},
    {"efa",
     "EFA reports every port as EDR 4X (100 Gb/s): with --bandwidth N% give "
     "the real rate with --link-bandwidth"},
    {"irdma", "no port packet counters that the report's bypass check reads"},
    {"hns", "no port packet counters that the report's bypass check reads"},
    {"bnxt_re",
     "port counters may count all unicast traffic (TCP too) on older chips "
     "and VFs: the report's bypass check may warn when nothing bypassed"},
    {"mana", "not tested with verbsemu: check the self-test and the report"},
    {"rxe",
     "rxe reports its netdev's nominal rate: with --bandwidth N% give the "
     "rate it achieves with --link-bandwidth"},
};

}  // namespace

std::string ProviderForDriver(std::string_view driver) {
  for (const DriverProvider& d : kDrivers) {
    if (driver.starts_with(d.driver)) return std::string(d.provider);
  }
  return "";
}

std::vector<std::string_view> ProviderLimits(std::string_view provider) {
  std::vector<std::string_view> out;
  for (const Limit& l : kLimits) {
    if (l.provider == provider) out.push_back(l.text);
  }
  return out;
}

}  // namespace verbsemu::doctor
