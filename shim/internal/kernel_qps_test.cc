// RDMA netlink replies as the kernel sends them (rdma_netlink.h; nldev.c
// fills one RES_QP table per message, one nested entry per QP), parsed.
#include "shim/internal/kernel_qps.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <climits>
#include <cstring>
#include <vector>

namespace verbsemu::shim::internal {
namespace {

// Builds netlink messages attribute by attribute.
class Msg {
 public:
  explicit Msg(uint16_t type) {
    nlmsghdr h{};
    h.nlmsg_type = type;
    Put(&h, sizeof h);
  }
  Msg& U32(uint16_t type, uint32_t v) { return Attr(type, &v, sizeof v); }
  Msg& U8(uint16_t type, uint8_t v) { return Attr(type, &v, sizeof v); }
  Msg& Str(uint16_t type, const char* s) {
    return Attr(type, s, std::strlen(s) + 1);
  }
  Msg& Nest(uint16_t type, const Msg& inner) {  // inner's attributes only
    return Attr(type | NLA_F_NESTED, inner.bytes_.data() + NLMSG_HDRLEN,
                inner.bytes_.size() - NLMSG_HDRLEN);
  }
  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> b = bytes_;
    const uint32_t len = static_cast<uint32_t>(b.size());
    std::memcpy(b.data(), &len, sizeof len);  // nlmsg_len
    return b;
  }

 private:
  Msg& Attr(uint16_t type, const void* p, size_t n) {
    nlattr a{static_cast<uint16_t>(NLA_HDRLEN + n), type};
    Put(&a, sizeof a);
    Put(p, n);
    bytes_.resize(NLA_ALIGN(bytes_.size()));
    return *this;
  }
  void Put(const void* p, size_t n) {
    const size_t at = bytes_.size();
    bytes_.resize(at + n);
    if (n != 0) std::memcpy(bytes_.data() + at, p, n);
  }
  std::vector<uint8_t> bytes_;
};

constexpr uint16_t kQpGet =
    RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);

Msg Entry(uint32_t qpn, uint32_t pid) {
  Msg e(0);
  e.U32(RDMA_NLDEV_ATTR_RES_LQPN, qpn).U8(RDMA_NLDEV_ATTR_RES_TYPE, 2);
  if (pid != 0) e.U32(RDMA_NLDEV_ATTR_RES_PID, pid);
  return e;
}

std::vector<uint8_t> Join(std::vector<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> all;
  for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

TEST(KernelQpsTest, QpTableEntriesWithTheirOwners) {
  Msg table(0);
  table.Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, Entry(1, 0))
      .Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, Entry(0x11, 4242))
      .Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, Entry(0x12, 77));
  Msg m(kQpGet);
  m.U32(RDMA_NLDEV_ATTR_DEV_INDEX, 3)
      .Str(RDMA_NLDEV_ATTR_DEV_NAME, "rxe0")
      .Nest(RDMA_NLDEV_ATTR_RES_QP, table);
  std::vector<KernelQp> qps;
  const DumpChunk c = ParseQpDump(m.Bytes(), &qps);
  EXPECT_FALSE(c.malformed);
  EXPECT_FALSE(c.done);
  ASSERT_EQ(qps.size(), 3u);
  EXPECT_EQ(qps[0].device, "rxe0");
  EXPECT_EQ(qps[0].pid, 0u);  // a kernel QP (QP1)
  EXPECT_EQ(qps[1].qpn, 0x11u);
  EXPECT_EQ(qps[1].pid, 4242u);
  EXPECT_EQ(qps[2].type, 2);
}

TEST(KernelQpsTest, TheDumpEndsWithDoneAndAnErrorIsItsErrno) {
  std::vector<KernelQp> qps;
  EXPECT_TRUE(ParseQpDump(Msg(NLMSG_DONE).Bytes(), &qps).done);
  Msg err(NLMSG_ERROR);
  err.U32(0, 0);  // any payload: the errno is its first 4 bytes
  std::vector<uint8_t> b = err.Bytes();
  const int minus_eperm = -EPERM;
  std::memcpy(b.data() + NLMSG_HDRLEN, &minus_eperm, sizeof minus_eperm);
  const DumpChunk c = ParseQpDump(b, &qps);
  EXPECT_TRUE(c.done);
  EXPECT_EQ(c.error, EPERM);
}

TEST(KernelQpsTest, AnErrnoOutOfRangeIsAProtocolError) {
  for (const int bad : {INT_MIN, -4096, 5}) {
    Msg err(NLMSG_ERROR);
    err.U32(0, 0);
    std::vector<uint8_t> b = err.Bytes();
    std::memcpy(b.data() + NLMSG_HDRLEN, &bad, sizeof bad);
    std::vector<KernelQp> qps;
    const DumpChunk c = ParseQpDump(b, &qps);
    EXPECT_TRUE(c.done) << bad;
    EXPECT_EQ(c.error, EPROTO) << bad;
  }
}

TEST(KernelQpsTest, SeveralMessagesInOneReceive) {
  Msg t1(0), t2(0);
  t1.Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, Entry(5, 9));
  t2.Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, Entry(6, 9));
  Msg a(kQpGet), b(kQpGet);
  a.Str(RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0").Nest(RDMA_NLDEV_ATTR_RES_QP, t1);
  b.Str(RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0").Nest(RDMA_NLDEV_ATTR_RES_QP, t2);
  std::vector<KernelQp> qps;
  const DumpChunk c =
      ParseQpDump(Join({a.Bytes(), b.Bytes(), Msg(NLMSG_DONE).Bytes()}), &qps);
  EXPECT_TRUE(c.done);
  ASSERT_EQ(qps.size(), 2u);
  EXPECT_EQ(qps[1].qpn, 6u);
}

TEST(KernelQpsTest, DevicesByIndexAndName) {
  Msg a(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
  a.U32(RDMA_NLDEV_ATTR_DEV_INDEX, 7).Str(RDMA_NLDEV_ATTR_DEV_NAME, "rxe1");
  std::vector<std::pair<uint32_t, std::string>> devs;
  EXPECT_FALSE(ParseDeviceDump(a.Bytes(), &devs).malformed);
  ASSERT_EQ(devs.size(), 1u);
  EXPECT_EQ(devs[0], std::make_pair(7u, std::string("rxe1")));
}

TEST(KernelQpsTest, LengthsPastTheBufferAreMalformedNotRead) {
  Msg t(0);
  t.Nest(RDMA_NLDEV_ATTR_RES_QP_ENTRY, Entry(5, 9));
  Msg m(kQpGet);
  m.Nest(RDMA_NLDEV_ATTR_RES_QP, t);
  std::vector<uint8_t> b = m.Bytes();
  std::vector<KernelQp> qps;
  // A message longer than what was received.
  std::vector<uint8_t> cut(b.begin(), b.end() - 4);
  EXPECT_TRUE(ParseQpDump(cut, &qps).malformed);
  // An attribute longer than its message.
  const uint16_t big = 0x7fff;
  std::memcpy(b.data() + NLMSG_HDRLEN, &big, sizeof big);
  EXPECT_TRUE(ParseQpDump(b, &qps).malformed);
  EXPECT_TRUE(qps.empty());
}

}  // namespace
}  // namespace verbsemu::shim::internal
