#include "verbsbench/rte/team.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "verbsbench/rte/provenance.h"

namespace verbsbench::rte {
namespace {

// A TCP port nobody listens on now (bound once to port 0, then released).
uint16_t FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  return ntohs(addr.sin_port);
}

struct FakePeer {
  std::string host;
  std::string ib_dev;
  int pid;
};

// Peers arriving in the order given get ranks in (host, device, pid) order,
// and each rank's channel reaches that peer.
TEST(TcpTeam, PeersAreRankedByHostDeviceAndPidNotArrival) {
  const std::vector<FakePeer> arrivals = {{"node-b", "", 7},
                                          {"node-a", "rxe1", 9},
                                          {"node-a", "rxe0", 12},
                                          {"node-a", "rxe0", 3}};
  const std::vector<int> expected_pids = {3, 12, 9, 7};  // ranks 1..4
  Options o;
  o.bind = "127.0.0.1";
  o.port = FreePort();
  o.peers = static_cast<int>(arrivals.size());
  o.timeout_s = 20;
  Team root;
  std::ostringstream progress;
  std::thread listener([&] { root = TcpRoot(o, LocalIdentity(), progress); });
  std::vector<Team> peers;
  for (const FakePeer& f : arrivals) {
    Options po = o;
    po.host = "127.0.0.1";
    po.ib_dev = f.ib_dev;
    peers.push_back(TcpPeer(po, {{"host", f.host}, {"pid", f.pid}}));
  }
  listener.join();
  ASSERT_TRUE(root.is_root());
  ASSERT_EQ(root.members.size(), arrivals.size() + 1);
  ASSERT_EQ(root.peers().size(), arrivals.size());
  EXPECT_EQ(root.members[0].at("rank"), 0);
  EXPECT_EQ(root.members[0].at("pid"), getpid());
  for (size_t r = 1; r < root.members.size(); ++r) {
    EXPECT_EQ(root.members[r].at("rank"), static_cast<int>(r));
    EXPECT_EQ(root.members[r].at("pid"), expected_pids[r - 1]);
    EXPECT_NE(root.members[r].value("address", ""), "");
    root.peers()[r - 1]->Send({{"type", "you"}, {"rank", r}});
  }
  for (size_t i = 0; i < peers.size(); ++i) {
    EXPECT_FALSE(peers[i].is_root());
    const nlohmann::json m = peers[i].root().Expect("you", 5);
    const size_t rank = m.at("rank").get<size_t>();
    EXPECT_EQ(root.members[rank].at("pid"), arrivals[i].pid);
  }
  EXPECT_NE(progress.str().find("waiting for 4 peer(s)"), std::string::npos);
}

TEST(TcpTeam, APeerWithoutIdentityIsRefused) {
  Options o;
  o.bind = "127.0.0.1";
  o.port = FreePort();
  o.timeout_s = 20;
  std::ostringstream progress;
  std::string error;
  std::thread listener([&] {
    try {
      TcpRoot(o, LocalIdentity(), progress);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  Options po = o;
  po.host = "127.0.0.1";
  Team peer = TcpPeer(po, {{"pid", 1}});  // no host
  listener.join();
  EXPECT_NE(error.find("sent no host and pid"), std::string::npos) << error;
}

}  // namespace
}  // namespace verbsbench::rte
