// The MPI channel between real ranks. Every rank runs every test (each test
// is one exchange between rank 0 and all others); mpi_channel.bats starts
// it under `mpirun -np 3 --oversubscribe`. A failure on any rank fails the
// run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "verbsbench/rte/mpi_world.h"
#include "verbsbench/rte/provenance.h"
#include "verbsbench/rte/team.h"

namespace verbsbench::rte {
namespace {

MpiWorld* world = nullptr;  // made in main, before the tests

// The team over MPI; each test forms its own.
Team Form() { return MpiTeam(*world, LocalIdentity(), 30); }

TEST(MpiChannel, RunsWithSeveralRanks) { ASSERT_GE(world->size(), 3); }

TEST(MpiChannel, MembersAreInRankOrderAndChannelsReachThem) {
  Team team = Form();
  if (team.is_root()) {
    ASSERT_EQ(team.members.size(), static_cast<size_t>(world->size()));
    for (int r = 1; r < world->size(); ++r) {
      EXPECT_EQ(team.members[r].at("rank"), r);
      internal::Channel& peer = *team.peers()[r - 1];
      EXPECT_EQ(peer.remote(), "rank " + std::to_string(r));
      EXPECT_EQ(peer.fd(), -1);  // so rdma_cm is not offered over MPI
      peer.Send({{"type", "ping"}, {"rank", r}});
      const nlohmann::json pong = peer.Expect("pong", 30);
      EXPECT_EQ(pong.at("rank"), r);
      EXPECT_EQ(pong.at("pid"), team.members[r].at("pid"));
    }
  } else {
    EXPECT_EQ(team.rank, world->rank());
    const nlohmann::json ping = team.root().Expect("ping", 30);
    EXPECT_EQ(ping.at("rank"), world->rank());
    team.root().Send(
        {{"type", "pong"}, {"rank", world->rank()}, {"pid", getpid()}});
  }
}

// Both ends send before either receives (the fabric's buffer exchange):
// synchronous sends must not wait on each other.
TEST(MpiChannel, BothEndsSendAtOnce) {
  Team team = Form();
  std::vector<internal::Channel*> ends =
      team.is_root() ? team.peers()
                     : std::vector<internal::Channel*>{&team.root()};
  for (internal::Channel* c : ends) {
    c->Send({{"type", "buf"}, {"from", world->rank()}});
    const nlohmann::json m = c->Expect("buf", 30);
    EXPECT_NE(m.at("from"), world->rank());
  }
}

// Above every eager limit (a peer's histograms and raw samples), in order.
TEST(MpiChannel, LargeMessagesArriveWholeAndInOrder) {
  Team team = Form();
  const std::string big(4 << 20, 'x');
  if (team.is_root()) {
    for (internal::Channel* c : team.peers()) {
      for (int k = 0; k < 50; ++k) c->Send({{"type", "n"}, {"k", k}});
      c->Send({{"type", "big"}, {"data", big}});
    }
    for (internal::Channel* c : team.peers()) {
      EXPECT_EQ(c->Expect("big", 30).at("data").get<std::string>().size(),
                big.size());
    }
  } else {
    for (int k = 0; k < 50; ++k) {
      EXPECT_EQ(team.root().Expect("n", 30).at("k"), k);
    }
    const nlohmann::json m = team.root().Expect("big", 30);
    EXPECT_EQ(m.at("data").get<std::string>(), big);
    team.root().Send({{"type", "big"}, {"data", big}});
  }
}

// A Recv with a timeout gives up with a message, then the channel works on.
TEST(MpiChannel, RecvTimesOut) {
  Team team = Form();
  if (team.is_root()) {
    internal::Channel& peer = *team.peers()[0];
    const auto start = std::chrono::steady_clock::now();
    try {
      peer.Recv(0.3);
      ADD_FAILURE() << "a message came from nowhere";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "timed out waiting for rank 1");
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    EXPECT_GE(waited, 0.3);
    EXPECT_LT(waited, 5.0);
    for (internal::Channel* c : team.peers()) c->Send({{"type", "go"}});
  } else {
    team.root().Expect("go", 30);
  }
}

// A peer's "error" message becomes the root's exception.
TEST(MpiChannel, PeerErrorsReachTheRoot) {
  Team team = Form();
  if (team.is_root()) {
    for (internal::Channel* c : team.peers()) {
      try {
        c->Expect("done", 30);
        ADD_FAILURE() << "no error from " << c->remote();
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "peer " + c->remote() + ": no device here");
      }
    }
  } else {
    team.root().Send({{"type", "error"}, {"message", "no device here"}});
  }
}

// Open MPI was kept off RDMA devices: verbsbench's defaults filled what
// the launcher left unset, and what it set (mpi_channel.bats sets
// OMPI_MCA_btl) stayed.
TEST(MpiWorld, McaDefaultsFillOnlyWhatIsUnset) {
  const char* pml = std::getenv("OMPI_MCA_pml");
  const char* btl = std::getenv("OMPI_MCA_btl");
  ASSERT_NE(pml, nullptr);
  ASSERT_NE(btl, nullptr);
  EXPECT_STREQ(pml, "ob1");
  EXPECT_STREQ(btl, "self,tcp");
  EXPECT_NE(world->library(), "");
  for (const char c : world->library()) {
    EXPECT_TRUE(c >= ' ' && c <= '~') << "library: " << world->library();
  }
}

}  // namespace
}  // namespace verbsbench::rte

int main(int argc, char** argv) {
  verbsbench::rte::MpiWorld world;  // finalized after the tests
  verbsbench::rte::world = &world;
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
