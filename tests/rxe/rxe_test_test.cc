// The test bed as the device tests see it: each end of the topology is an
// open-able device with an active Ethernet port, and its GID index names the
// RoCE v2 GID that carries its IPv4 address (what perftest's -x and the
// engine's gid_index rely on).
#include "tests/rxe/rxe_test.h"

#include <arpa/inet.h>

#include <cstring>

namespace verbsemu::testing {
namespace {

class RxeTopologyTest : public RxeTest {
 protected:
  void ExpectUsable(const RxeEnd& end) {
    Context context = Open(end);
    ASSERT_NE(context, nullptr);
    ibv_port_attr port{};
    ASSERT_EQ(ibv_query_port(context.get(), 1, &port), 0) << end.device;
    EXPECT_EQ(port.state, IBV_PORT_ACTIVE) << end.device;
    EXPECT_EQ(port.link_layer, IBV_LINK_LAYER_ETHERNET) << end.device;

    ibv_gid_entry entry{};
    ASSERT_EQ(ibv_query_gid_ex(context.get(), 1, end.gid_index, &entry, 0), 0)
        << end.device << " GID " << end.gid_index;
    EXPECT_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V2) << end.device;
    if (end.address.empty()) return;  // outside the guest: no address known
    // An IPv4-mapped GID, ::ffff:a.b.c.d.
    in_addr address{};
    ASSERT_EQ(inet_pton(AF_INET, end.address.c_str(), &address), 1)
        << end.address;
    const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0,    0,
                                       0, 0, 0, 0, 0xff, 0xff};
    EXPECT_EQ(std::memcmp(entry.gid.raw, mapped_prefix, sizeof mapped_prefix),
              0);
    EXPECT_EQ(std::memcmp(entry.gid.raw + 12, &address, 4), 0) << end.address;
  }
};

TEST_F(RxeTopologyTest, ServerEndIsUsable) { ExpectUsable(server()); }

TEST_F(RxeTopologyTest, ClientEndIsUsable) { ExpectUsable(client()); }

TEST_F(RxeTopologyTest, PairTopologyHasTwoDevices) {
  if (std::getenv("VERBSEMU_VM_TOPOLOGY") == nullptr ||
      std::string(std::getenv("VERBSEMU_VM_TOPOLOGY")) != "pair") {
    EXPECT_EQ(client().device, server().device);
    return;
  }
  EXPECT_NE(client().device, server().device);
  EXPECT_NE(client().address, server().address);
}

}  // namespace
}  // namespace verbsemu::testing
