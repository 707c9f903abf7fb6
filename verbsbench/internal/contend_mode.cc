#include "verbsbench/internal/contend_mode.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

#include "verbsbench/contend/graph_set.h"
#include "verbsbench/contend/schedule.h"
#include "verbsbench/contend/summary.h"
#include "verbsbench/internal/contend_node.h"
#include "verbsbench/internal/protocol.h"
#include "verbsbench/rte/launcher.h"
#include "verbsbench/rte/mpi_world.h"
#include "verbsbench/rte/provenance.h"
#include "verbsbench/rte/team.h"

namespace verbsbench::internal {
namespace {

namespace mc = verbsemu::contention;
using contend::PlanEdge;
using contend::SideTime;
using nlohmann::json;

json EncodePlan(const std::vector<PlanEdge>& plan) {
  json edges = json::array();
  for (const PlanEdge& e : plan)
    edges.push_back({{"edge", e.edge},
                     {"slot", e.slot},
                     {"send", e.send},
                     {"bytes", e.bytes},
                     {"start_ns", e.start_ns}});
  return edges;
}

std::vector<PlanEdge> DecodePlan(const json& edges) {
  std::vector<PlanEdge> plan;
  for (const json& e : edges)
    plan.push_back({e.at("edge").get<int>(), e.at("slot").get<int>(),
                    e.at("send").get<bool>(), e.at("bytes").get<std::int64_t>(),
                    e.at("start_ns").get<std::int64_t>()});
  return plan;
}

json EncodeTimes(const std::vector<SideTime>& times) {
  json out = json::array();
  for (const SideTime& t : times) {
    json one = {{"edge", t.edge},
                {"send", t.send},
                {"start_ns", t.start_ns},
                {"end_ns", t.end_ns}};
    if (!t.completions_ns.empty()) one["completions_ns"] = t.completions_ns;
    out.push_back(std::move(one));
  }
  return out;
}

void DecodeTimes(const json& m, std::vector<SideTime>* out) {
  for (const json& t : m.at("edges"))
    out->push_back({t.at("edge").get<int>(), t.at("send").get<bool>(),
                    t.at("start_ns").get<std::int64_t>(),
                    t.at("end_ns").get<std::int64_t>(),
                    t.value("completions_ns", std::vector<std::int64_t>{})});
}

ContendNodeConfig NodeConfig(const Options& team, const json& setup) {
  ContendNodeConfig c;
  c.ib_dev = team.ib_dev;
  c.ib_port = team.ib_port;
  c.gid_index = team.gid_index;
  c.wr_size = setup.at("wr_size").get<std::int64_t>();
  c.window = setup.at("window").get<int>();
  c.timeout_s = setup.at("timeout_s").get<double>();
  c.yield = setup.at("yield").get<bool>();
  c.record_completions = setup.at("steady").get<bool>();
  return c;
}

// A peer: serves the root's messages until quit.
void Serve(const Options& team, Channel& root) {
  std::unique_ptr<ContendNode> node;
  for (;;) {
    const json m = root.Recv();
    const std::string type = m.value("type", "");
    if (type == "quit") return;
    if (type == "clock") {
      root.Send({{"type", "clock"}, {"now_ns", ContendNode::NowNs()}});
    } else if (type == "contend_setup") {
      node = std::make_unique<ContendNode>(NodeConfig(team, m));
      const json endpoints =
          node->Prepare(m.at("slots").get<std::vector<int>>());
      root.Send({{"type", "contend_local"},
                 {"host", rte::LocalIdentity().value("host", "")},
                 {"device", node->Device()},
                 {"endpoints", endpoints}});
    } else if (node && type == "contend_connect") {
      node->Connect(m.at("endpoints"));
      root.Send({{"type", "contend_connected"}});
    } else if (node && type == "contend_run") {
      const std::vector<PlanEdge> plan = DecodePlan(m.at("edges"));
      node->Arm(plan);
      const auto times = node->Execute(plan, m.at("t0_ns").get<std::int64_t>());
      root.Send({{"type", "contend_times"}, {"edges", EncodeTimes(times)}});
    } else {
      throw std::runtime_error("protocol error: unexpected '" + type +
                               "' from the root");
    }
  }
}

// The root's side of the run: its own node and its channels to ranks 1..P.
class Root {
 public:
  Root(const Options& team, const ContendOptions& c,
       std::vector<Channel*> peers, std::ostream& progress)
      : team_(team), c_(c), peers_(std::move(peers)), progress_(progress) {}

  mc::ContendData Measure(const std::vector<json>& members);

 private:
  int ranks() const { return static_cast<int>(peers_.size()) + 1; }
  Channel& To(int rank) { return *peers_.at(static_cast<size_t>(rank - 1)); }
  void Setup(const std::vector<contend::Slot>& slots,
             const std::vector<json>& members, mc::ContendData* d);
  void SyncClocks();
  std::vector<SideTime> RunPlans(const contend::RankPlans& plans);

  const Options& team_;
  const ContendOptions& c_;
  std::vector<Channel*> peers_;
  std::ostream& progress_;
  std::unique_ptr<ContendNode> node_;
  std::vector<contend::Offset> offsets_;  // by rank; rank 0: none
};

void Root::Setup(const std::vector<contend::Slot>& slots,
                 const std::vector<json>& members, mc::ContendData* d) {
  std::vector<std::vector<int>> local(static_cast<size_t>(ranks()));
  for (size_t s = 0; s < slots.size(); ++s) {
    local[static_cast<size_t>(slots[s].src_rank)].push_back(
        static_cast<int>(s));
    local[static_cast<size_t>(slots[s].dst_rank)].push_back(
        static_cast<int>(s));
  }
  const json setup = {{"type", "contend_setup"}, {"wr_size", c_.wr_size},
                      {"window", c_.window},     {"timeout_s", team_.timeout_s},
                      {"yield", c_.yield},       {"steady", c_.steady}};
  std::vector<json> endpoints(local.size());
  for (int r = 1; r < ranks(); ++r) {
    json m = setup;
    m["slots"] = local[static_cast<size_t>(r)];
    To(r).Send(m);
  }
  node_ = std::make_unique<ContendNode>(NodeConfig(team_, setup));
  endpoints[0] = node_->Prepare(local[0]);
  d->ranks.push_back({0, members.at(0).value("host", ""),
                      node_->Device().at("name").get<std::string>(),
                      team_.ib_port});
  for (int r = 1; r < ranks(); ++r) {
    const json m = To(r).Expect("contend_local", team_.timeout_s);
    endpoints[static_cast<size_t>(r)] = m.at("endpoints");
    d->ranks.push_back({r, m.at("host").get<std::string>(),
                        m.at("device").at("name").get<std::string>(),
                        m.at("device").at("port").get<int>()});
  }
  // Each end gets the other end's endpoint of every slot it holds.
  std::vector<json> remote(local.size(), json::object());
  for (size_t s = 0; s < slots.size(); ++s) {
    const auto src = static_cast<size_t>(slots[s].src_rank);
    const auto dst = static_cast<size_t>(slots[s].dst_rank);
    const std::string key = std::to_string(s);
    remote[src][key] = endpoints[dst].at(key);
    remote[dst][key] = endpoints[src].at(key);
  }
  for (int r = 1; r < ranks(); ++r)
    To(r).Send({{"type", "contend_connect"},
                {"endpoints", remote[static_cast<size_t>(r)]}});
  node_->Connect(remote[0]);
  for (int r = 1; r < ranks(); ++r)
    To(r).Expect("contend_connected", team_.timeout_s);
}

void Root::SyncClocks() {
  offsets_.assign(static_cast<size_t>(ranks()), contend::Offset{});
  for (int r = 1; r < ranks(); ++r) {
    std::vector<contend::Probe> probes;
    for (int i = 0; i < contend::kClockProbes; ++i) {
      const std::int64_t sent = ContendNode::NowNs();
      To(r).Send({{"type", "clock"}});
      const json m = To(r).Expect("clock", team_.timeout_s);
      probes.push_back(
          {sent, m.at("now_ns").get<std::int64_t>(), ContendNode::NowNs()});
    }
    offsets_[static_cast<size_t>(r)] = contend::ClockOffset(probes);
    progress_ << "rank " << r << ": clock offset "
              << offsets_[static_cast<size_t>(r)].offset_ns
              << " ns, round trip " << offsets_[static_cast<size_t>(r)].rtt_ns
              << " ns\n";
  }
}

std::vector<SideTime> Root::RunPlans(const contend::RankPlans& plans) {
  std::int64_t max_rtt = 0;
  for (const contend::Offset& o : offsets_)
    max_rtt = std::max(max_rtt, o.rtt_ns);
  const std::int64_t t0 =
      ContendNode::NowNs() + contend::StartLead(c_.lead_ns, max_rtt);
  if (plans.contains(0)) node_->Arm(plans.at(0));
  for (const auto& [rank, plan] : plans) {
    if (rank == 0) continue;
    To(rank).Send(
        {{"type", "contend_run"},
         {"t0_ns", t0 + offsets_.at(static_cast<size_t>(rank)).offset_ns},
         {"edges", EncodePlan(plan)}});
  }
  std::vector<SideTime> times;
  if (plans.contains(0)) times = node_->Execute(plans.at(0), t0);
  const double wait_s =
      team_.timeout_s + static_cast<double>(c_.lead_ns) * 1e-9;
  for (const auto& [rank, plan] : plans)
    if (rank != 0)
      DecodeTimes(To(rank).Expect("contend_times", wait_s), &times);
  return times;
}

mc::ContendData Root::Measure(const std::vector<json>& members) {
  contend::SetOptions so;
  so.ranks = ranks();
  so.bytes = c_.bytes;
  so.seed = c_.seed;
  so.max_degree = c_.max_degree;
  int left_out = 0;
  const std::vector<contend::PlannedGraph> graphs =
      contend::ExpandAll(c_.graphs, so, c_.closure, &left_out);
  if (left_out > 0)
    progress_ << left_out
              << " graph(s) of the sets left out: more vertices than "
              << ranks() << " ranks\n";
  const contend::SlotPlan slots = contend::PlanSlots(graphs);
  mc::ContendData d;
  d.params = {0, "write", c_.wr_size, c_.window,
              static_cast<std::int64_t>(c_.seed)};
  for (const contend::PlannedGraph& g : graphs)
    d.graphs.push_back(contend::Measured(g));
  Setup(slots.slots, members, &d);
  progress_ << graphs.size() << " graph(s) on " << ranks() << " ranks, "
            << slots.slots.size() << " QP(s) each end\n";
  SyncClocks();
  RunPlans(contend::PlanWarmup(slots.slots, 2 * c_.wr_size));
  for (const contend::BlockRun& b :
       contend::BlockOrder(static_cast<int>(graphs.size()), c_.reps, c_.seed)) {
    const auto& g = graphs[static_cast<size_t>(b.graph)];
    const auto times = RunPlans(contend::PlanRun(
        g, slots.edge_slot[static_cast<size_t>(b.graph)], slots.slots));
    d.graphs[static_cast<size_t>(b.graph)].runs.push_back(
        {b.rep, b.block, contend::MergeSides(g.graph.edge_count(), times)});
    if (b.graph == 0 || graphs.size() == 1)
      progress_ << "block " << b.block << " of " << c_.reps << "\n";
  }
  d.params.port_rate_Bps = contend::PortRate(d);
  return d;
}

}  // namespace

std::optional<mc::ContendData> RunContend(const Options& raw,
                                          const ContendOptions& c,
                                          std::ostream& progress) {
  Options team = raw;
  const rte::Getenv env = rte::ProcessEnvironment();
  team.rte = rte::ResolveRte(team.rte, team.is_peer(), env);
  std::unique_ptr<rte::MpiWorld> world;  // outlives the team's channels
  if (team.rte == Rte::kMpi) {
    world = std::make_unique<rte::MpiWorld>();
    if (world->size() < 2)
      throw std::runtime_error(
          "contend under MPI needs 2 ranks or more (mpirun -np 2)");
  }
  nlohmann::json self = rte::LocalIdentity();
  const rte::Team t =
      world            ? rte::MpiTeam(*world, std::move(self), team.timeout_s)
      : team.is_peer() ? rte::TcpPeer(team, self)
                       : rte::TcpRoot(team, std::move(self), progress);
  if (!t.is_root()) {
    try {
      Serve(team, t.root());
    } catch (const std::exception& e) {
      try {
        SendMessage(t.root(), Error{e.what()});
      } catch (const std::exception&) {
      }
      throw;
    }
    return std::nullopt;
  }
  const std::vector<Channel*> peers = t.peers();
  auto quit = [&] {
    for (Channel* p : peers) {
      try {
        SendMessage(*p, Quit{});
      } catch (const std::exception&) {
      }
    }
  };
  try {
    Root root(team, c, peers, progress);
    mc::ContendData d = root.Measure(t.members);
    quit();
    return d;
  } catch (const std::exception&) {
    quit();
    throw;
  }
}

}  // namespace verbsbench::internal
