// Fuzzes the RDMA netlink reply parsers with arbitrary bytes: never a read
// past the buffer, never a crash, and every QP they return names a device
// string no longer than the input.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "shim/internal/kernel_qps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace verbsemu::shim::internal;
  const std::span<const uint8_t> buf(data, size);
  std::vector<KernelQp> qps;
  ParseQpDump(buf, &qps);
  for (const KernelQp& q : qps) {
    if (q.device.size() > size) std::abort();
  }
  std::vector<std::pair<uint32_t, std::string>> devices;
  ParseDeviceDump(buf, &devices);
  return 0;
}
