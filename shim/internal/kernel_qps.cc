#include "shim/internal/kernel_qps.h"

#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>
#include <functional>

namespace verbsemu::shim::internal {
namespace {

// Calls `fn(type, payload)` for every attribute in `buf`; false when an
// attribute's length runs past the buffer.
bool ForEachAttr(
    std::span<const uint8_t> buf,
    const std::function<void(uint16_t, std::span<const uint8_t>)>& fn) {
  size_t at = 0;
  while (at + sizeof(nlattr) <= buf.size()) {
    nlattr a;
    std::memcpy(&a, buf.data() + at, sizeof a);
    if (a.nla_len < sizeof(nlattr) || at + a.nla_len > buf.size()) return false;
    fn(a.nla_type & NLA_TYPE_MASK,
       buf.subspan(at + NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
    at += NLA_ALIGN(a.nla_len);
  }
  return true;
}

uint32_t U32(std::span<const uint8_t> p) {
  uint32_t v = 0;
  if (p.size() >= sizeof v) std::memcpy(&v, p.data(), sizeof v);
  return v;
}

std::string Str(std::span<const uint8_t> p) {
  std::string s(reinterpret_cast<const char*>(p.data()), p.size());
  return s.substr(0, s.find('\0'));
}

// Calls `fn(payload)` for every RDMA message in `buf` and notes the end of
// the dump and errors.
DumpChunk ForEachMessage(
    std::span<const uint8_t> buf,
    const std::function<bool(std::span<const uint8_t>)>& fn) {
  DumpChunk c;
  size_t at = 0;
  while (at + sizeof(nlmsghdr) <= buf.size()) {
    nlmsghdr h;
    std::memcpy(&h, buf.data() + at, sizeof h);
    if (h.nlmsg_len < sizeof(nlmsghdr) || at + h.nlmsg_len > buf.size()) {
      c.malformed = true;
      return c;
    }
    const auto payload =
        buf.subspan(at + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
    if (h.nlmsg_type == NLMSG_DONE) {
      c.done = true;
    } else if (h.nlmsg_type == NLMSG_ERROR) {
      int err = 0;
      if (payload.size() >= sizeof err)
        std::memcpy(&err, payload.data(), sizeof err);
      // The kernel sends a negative errno; anything outside errno's range
      // (INT_MIN cannot even be negated) is reported as a protocol error.
      c.error = err == 0 ? 0 : (err < 0 && err > -4096 ? -err : EPROTO);
      c.done = true;  // an acknowledgement (0) ends a request too
    } else if (!fn(payload)) {
      c.malformed = true;
    }
    at += NLMSG_ALIGN(h.nlmsg_len);
  }
  return c;
}

// One QP table entry.
bool ParseQpEntry(std::span<const uint8_t> entry, const std::string& device,
                  std::vector<KernelQp>* out) {
  KernelQp q;
  q.device = device;
  const bool ok = ForEachAttr(entry, [&](uint16_t type, auto p) {
    if (type == RDMA_NLDEV_ATTR_RES_LQPN) q.qpn = U32(p);
    if (type == RDMA_NLDEV_ATTR_RES_PID) q.pid = U32(p);
    if (type == RDMA_NLDEV_ATTR_RES_TYPE && !p.empty()) q.type = p[0];
  });
  if (ok) out->push_back(std::move(q));
  return ok;
}

// A netlink socket to the RDMA subsystem.
class RdmaSocket {
 public:
  RdmaSocket()
      : fd_(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA)) {
    if (fd_ < 0) return;
    // A kernel that never answers must not hold the caller for long.
    timeval tv{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_nl a{};
    a.nl_family = AF_NETLINK;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) Close();
  }
  ~RdmaSocket() { Close(); }
  RdmaSocket(const RdmaSocket&) = delete;
  RdmaSocket& operator=(const RdmaSocket&) = delete;
  bool ok() const { return fd_ >= 0; }

  // Sends a dump request for `cmd`, with a device index when `dev` >= 0.
  bool Request(int cmd, int64_t dev) {
    struct {
      nlmsghdr h;
      nlattr a;
      uint32_t index;
    } msg{};
    msg.h.nlmsg_len =
        NLMSG_HDRLEN + (dev >= 0 ? NLA_HDRLEN + sizeof(uint32_t) : 0);
    msg.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
    // No NLM_F_ACK: a dump ends with NLMSG_DONE alone.
    msg.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    msg.h.nlmsg_seq = ++seq_;
    msg.a.nla_len = NLA_HDRLEN + sizeof(uint32_t);
    msg.a.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
    msg.index = static_cast<uint32_t>(dev);
    return send(fd_, &msg, msg.h.nlmsg_len, 0) ==
           static_cast<ssize_t>(msg.h.nlmsg_len);
  }

  // Reads replies into `parse` until the dump ends; errno value or 0.
  int Drain(const std::function<DumpChunk(std::span<const uint8_t>)>& parse) {
    std::vector<uint8_t> buf(1 << 16);
    for (;;) {
      const ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n < 0 ? errno : EPIPE;
      const DumpChunk c = parse(std::span(buf.data(), static_cast<size_t>(n)));
      if (c.malformed) return EPROTO;
      if (c.error != 0) return c.error;
      if (c.done) return 0;
    }
  }

 private:
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd_;
  uint32_t seq_ = 0;
};

}  // namespace

DumpChunk ParseDeviceDump(std::span<const uint8_t> buf,
                          std::vector<std::pair<uint32_t, std::string>>* out) {
  return ForEachMessage(buf, [out](std::span<const uint8_t> payload) {
    uint32_t index = 0;
    std::string name;
    const bool ok = ForEachAttr(payload, [&](uint16_t type, auto p) {
      if (type == RDMA_NLDEV_ATTR_DEV_INDEX) index = U32(p);
      if (type == RDMA_NLDEV_ATTR_DEV_NAME) name = Str(p);
    });
    if (ok && !name.empty()) out->emplace_back(index, name);
    return ok;
  });
}

DumpChunk ParseQpDump(std::span<const uint8_t> buf,
                      std::vector<KernelQp>* out) {
  return ForEachMessage(buf, [out](std::span<const uint8_t> payload) {
    std::string device;
    std::span<const uint8_t> table;
    const bool ok = ForEachAttr(payload, [&](uint16_t type, auto p) {
      if (type == RDMA_NLDEV_ATTR_DEV_NAME) device = Str(p);
      if (type == RDMA_NLDEV_ATTR_RES_QP) table = p;
    });
    bool entries_ok = true;
    const bool table_ok = ForEachAttr(table, [&](uint16_t type, auto p) {
      if (type == RDMA_NLDEV_ATTR_RES_QP_ENTRY) {
        entries_ok = ParseQpEntry(p, device, out) && entries_ok;
      }
    });
    return ok && table_ok && entries_ok;
  });
}

KernelQpList ListKernelQps() {
  KernelQpList r;
  RdmaSocket s;
  if (!s.ok()) {
    r.error = std::string("no RDMA netlink socket: ") + std::strerror(errno);
    return r;
  }
  std::vector<std::pair<uint32_t, std::string>> devices;
  int err = s.Request(RDMA_NLDEV_CMD_GET, -1)
                ? s.Drain([&](auto b) { return ParseDeviceDump(b, &devices); })
                : errno;
  for (size_t i = 0; err == 0 && i < devices.size(); ++i) {
    err = s.Request(RDMA_NLDEV_CMD_RES_QP_GET, devices[i].first)
              ? s.Drain([&](auto b) { return ParseQpDump(b, &r.qps); })
              : errno;
  }
  if (err != 0) {
    r.error = std::string("RDMA netlink dump failed: ") + std::strerror(err);
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace verbsemu::shim::internal
