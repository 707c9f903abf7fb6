// What verbsemu can and cannot do on each kind of RDMA device: the one table
// `verbsemu doctor` prints from (docs/shim.md and the review of real stacks
// in the project notes are the sources).
#ifndef VERBSEMU_DOCTOR_PROVIDER_LIMITS_H_
#define VERBSEMU_DOCTOR_PROVIDER_LIMITS_H_

#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::doctor {

// The rdma-core provider serving a kernel driver ("mlx5_core" -> "mlx5"),
// or "" when the driver is not one verbsemu knows.
std::string ProviderForDriver(std::string_view driver);

// Known limits for `provider`; "iWARP" names the ones every iWARP device
// has, whatever its provider.
std::vector<std::string_view> ProviderLimits(std::string_view provider);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_PROVIDER_LIMITS_H_
