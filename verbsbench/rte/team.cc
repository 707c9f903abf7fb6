#include "verbsbench/rte/team.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "verbsbench/internal/control.h"

namespace verbsbench::rte {
namespace {

using internal::Channel;
using internal::Control;

// A peer's first message: who it is, and the device it asked for.
void SendMember(Channel& root, const nlohmann::json& self,
                const std::string& ib_dev) {
  root.Send({{"type", "member"}, {"identity", self}, {"ib_dev", ib_dev}});
}

struct Arrival {
  std::unique_ptr<Channel> channel;
  nlohmann::json identity;
  std::string ib_dev;
};

Arrival Receive(std::unique_ptr<Channel> channel, double timeout_s) {
  const nlohmann::json m = channel->Expect("member", timeout_s);
  Arrival a{std::move(channel), m.at("identity"), m.value("ib_dev", "")};
  if (!a.identity.is_object() || !a.identity.contains("host") ||
      !a.identity.contains("pid")) {
    throw std::runtime_error("peer " + a.channel->remote() +
                             " sent no host and pid");
  }
  return a;
}

Team RootOf(nlohmann::json self) {
  Team team;
  self["rank"] = 0;
  team.members.push_back(std::move(self));
  return team;
}

}  // namespace

std::vector<Channel*> Team::peers() const {
  std::vector<Channel*> out;
  if (!is_root()) return out;
  for (const auto& c : channels) out.push_back(c.get());
  return out;
}

Channel& Team::root() const {
  if (is_root() || channels.size() != 1) {
    throw std::logic_error("the root has no channel to a root");
  }
  return *channels.front();
}

Team TcpRoot(const Options& o, nlohmann::json self, std::ostream& progress) {
  const internal::Fd listener = Control::Listen(o.bind, o.port);
  progress << "waiting for " << o.peers << " peer(s) on port " << o.port
           << "\n";
  std::vector<Arrival> arrivals;
  arrivals.reserve(static_cast<size_t>(o.peers));
  for (int i = 0; i < o.peers; ++i) {
    arrivals.push_back(Receive(
        std::make_unique<Control>(Control::Accept(listener, o.timeout_s)),
        o.timeout_s));
  }
  auto key = [](const Arrival& a) {
    return std::make_tuple(a.identity.value("host", ""), a.ib_dev,
                           a.identity.value("pid", 0));
  };
  std::stable_sort(
      arrivals.begin(), arrivals.end(),
      [&](const Arrival& a, const Arrival& b) { return key(a) < key(b); });
  Team team = RootOf(std::move(self));
  for (Arrival& a : arrivals) {
    a.identity["rank"] = static_cast<int>(team.members.size());
    a.identity["address"] = a.channel->remote();
    team.members.push_back(std::move(a.identity));
    team.channels.push_back(std::move(a.channel));
  }
  return team;
}

Team TcpPeer(const Options& o, const nlohmann::json& self) {
  Team team;
  team.rank = -1;  // the root numbers the peers; a peer need not know
  team.channels.push_back(
      std::make_unique<Control>(Control::Connect(o.host, o.port, o.timeout_s)));
  SendMember(*team.channels.front(), self, o.ib_dev);
  return team;
}

Team MpiTeam(const MpiWorld& world, nlohmann::json self, double timeout_s) {
  if (world.rank() != 0) {
    Team team;
    team.rank = world.rank();
    team.channels.push_back(world.ChannelTo(0));
    SendMember(*team.channels.front(), self, "");
    return team;
  }
  Team team = RootOf(std::move(self));
  for (int r = 1; r < world.size(); ++r) {
    Arrival a = Receive(world.ChannelTo(r), timeout_s);
    a.identity["rank"] = r;
    team.members.push_back(std::move(a.identity));
    team.channels.push_back(std::move(a.channel));
  }
  return team;
}

}  // namespace verbsbench::rte
