// The kernel's list of RDMA QPs, read over RDMA netlink (what `rdma
// resource show qp` prints: RDMA_NLDEV_CMD_RES_QP_GET, dumped per device),
// each with the pid that owns it. The shim compares this process's QPs with
// the ones it saw (hidden_qps.h): the kernel sees every QP, whatever path
// the application took to libibverbs or around it.
#ifndef VERBSEMU_SHIM_INTERNAL_KERNEL_QPS_H_
#define VERBSEMU_SHIM_INTERNAL_KERNEL_QPS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace verbsemu::shim::internal {

struct KernelQp {
  std::string device;
  uint32_t qpn = 0;
  uint32_t pid = 0;  // 0: a kernel QP, or the owner is in another pid namespace
  uint8_t type = 0;  // ib_qp_type (RDMA_NLDEV_ATTR_RES_TYPE)
};

struct KernelQpList {
  bool ok = false;
  std::string error;  // why not, when !ok (no RDMA netlink, a refused dump)
  std::vector<KernelQp> qps;
};

// Every QP of every RDMA device, as the kernel lists them to this process.
KernelQpList ListKernelQps();

// What one receive of a dump held: parsing kept apart from the socket for
// tests and fuzzing. `buf` holds whole netlink messages.
struct DumpChunk {
  bool done = false;  // NLMSG_DONE seen
  int error = 0;      // errno from an NLMSG_ERROR, 0 if none
  bool malformed = false;
};
// Devices (RDMA_NLDEV_CMD_GET replies): index and name appended to `out`.
DumpChunk ParseDeviceDump(std::span<const uint8_t> buf,
                          std::vector<std::pair<uint32_t, std::string>>* out);
// QPs (RDMA_NLDEV_CMD_RES_QP_GET replies) appended to `out`.
DumpChunk ParseQpDump(std::span<const uint8_t> buf, std::vector<KernelQp>* out);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_KERNEL_QPS_H_
