#include "verbsbench/engine.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "verbsbench/internal/data_path.h"
#include "verbsbench/internal/fabric.h"
#include "verbsbench/internal/modes.h"
#include "verbsbench/internal/patterns.h"
#include "verbsbench/internal/peer.h"
#include "verbsbench/internal/protocol.h"
#include "verbsbench/mode.h"
#include "verbsbench/rte/launcher.h"
#include "verbsbench/rte/mpi_world.h"
#include "verbsbench/rte/provenance.h"
#include "verbsbench/rte/team.h"
#include "verbsbench/timer.h"

namespace verbsbench {
namespace {

using internal::Channel;
using internal::Fabric;

internal::FabricConfig FabricConfigFor(const Options& o) {
  internal::FabricConfig cfg;
  cfg.cm = o.cm;
  cfg.ib_dev = o.ib_dev;
  cfg.ib_port = o.ib_port;
  cfg.gid_index = o.gid_index;
  cfg.max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
  cfg.sq_depth = o.sq_depth;
  cfg.rq_depth = o.rq_depth;
  cfg.max_inline = o.max_inline;
  cfg.timeout_s = o.timeout_s;
  cfg.wait = o.wait;
  // lop's list-posted round runs on UD, for send only.
  cfg.ud = internal::RowOf(o.mode).ud &&
           std::find(o.ops.begin(), o.ops.end(), Op::kSend) != o.ops.end();
  return cfg;
}

// Peer: connects to the root and serves it; a failure is reported to the
// root before it propagates.
void ServeRoot(Fabric& fabric, const Timer& timer, const Options& o,
               Channel& control, std::ostream& progress) {
  try {
    fabric.ConnectToRoot(control, o.host);
    progress << "connected to " << control.remote() << " via "
             << fabric.cm_method() << "\n";
    internal::VerbsPath path(fabric, timer, o);
    internal::Peer<internal::VerbsPath> peer(path, control, timer);
    peer.Serve();
  } catch (const std::exception& e) {
    try {
      internal::SendMessage(control, internal::Error{e.what()});
    } catch (const std::exception&) {
    }
    throw;
  }
}

// Root: measures the mode's points into `result`.
void Measure(Fabric& fabric, const std::vector<Channel*>& peers,
             const Timer& timer, const Options& o, std::ostream& progress,
             Result& result) {
  internal::VerbsPath path(fabric, timer, o);
  internal::Patterns<internal::VerbsPath> patterns(path, peers, timer, o);
  internal::RowOf(o.mode).run(patterns, o, progress, result);
}

// Under MPI the launcher decides P: ranks − 1, which --peers (if given)
// and the mode must agree with.
void FitToWorld(const rte::MpiWorld& world,
                const std::optional<rte::Launch>& launch, Options& o) {
  const int peers = world.size() - 1;
  if (peers < 1) {
    if (launch && launch->size > 1) {
      throw std::runtime_error(
          launch->launcher + " started " + std::to_string(launch->size) +
          " processes (" + launch->variable +
          "), but MPI sees 1: the launcher and MPI do not match (srun needs "
          "--mpi=pmix for Open MPI)");
    }
    throw std::runtime_error(
        "--rte mpi needs a root and at least one peer: start P+1 ranks "
        "(mpirun -np 2 or more)");
  }
  const std::string ranks = std::to_string(world.size());
  if (!internal::RowOf(o.mode).many_peers && peers != 1) {
    throw std::runtime_error(std::string(Name(o.mode)) +
                             " runs one root and one peer: start 2 ranks, "
                             "not " +
                             ranks);
  }
  if (o.peers == 0) o.peers = peers;
  if (o.peers != peers) {
    throw std::runtime_error("--peers " + std::to_string(o.peers) + " needs " +
                             std::to_string(o.peers + 1) +
                             " ranks; the launcher started " + ranks);
  }
}

// How the ranks met, for the provenance.
nlohmann::json RteJson(const Options& o, const rte::MpiWorld* world,
                       const std::optional<rte::Launch>& launch) {
  if (!world) return {{"kind", "tcp"}, {"port", o.port}};
  return {{"kind", "mpi"},
          {"size", world->size()},
          {"library", world->library()},
          {"launch", launch ? launch->ToJson() : nlohmann::json()}};
}

// Rank → host and device: the members' identities with the device each end
// reported when its endpoint connected.
nlohmann::json RankMap(const rte::Team& team, const Fabric& fabric,
                       std::ostream& progress) {
  nlohmann::json ranks = team.members;
  ranks[0]["device"] = fabric.LocalDevice();
  const std::vector<nlohmann::json>& devices = fabric.remote_devices();
  for (size_t i = 0; i < devices.size() && i + 1 < ranks.size(); ++i) {
    ranks[i + 1]["device"] = devices[i];
  }
  progress << "ranks:";
  for (const nlohmann::json& r : ranks) {
    const nlohmann::json device = r.value("device", nlohmann::json::object());
    progress << " " << r.value("rank", 0) << "=" << r.value("host", "?") << "/"
             << device.value("name", "?");
  }
  progress << "\n";
  return ranks;
}

// The team: over MPI, or over TCP as root or peer.
rte::Team FormTeam(const Options& o, const rte::MpiWorld* world,
                   std::ostream& progress) {
  nlohmann::json self = rte::LocalIdentity();
  if (world) {
    rte::Team team = rte::MpiTeam(*world, std::move(self), o.timeout_s);
    if (team.is_root()) {
      progress << "met " << o.peers << " peer(s) over MPI, ranks 1.." << o.peers
               << " (" << world->library() << ")\n";
    }
    return team;
  }
  if (o.is_peer()) return rte::TcpPeer(o, self);
  return rte::TcpRoot(o, std::move(self), progress);
}

}  // namespace

Result Run(const Options& raw_options, std::ostream& progress) {
  Options requested = raw_options;
  const rte::Getenv env = rte::ProcessEnvironment();
  requested.rte = rte::ResolveRte(requested.rte, !requested.host.empty(), env);
  std::optional<rte::Launch> launch;
  std::unique_ptr<rte::MpiWorld> world;  // outlives the team's channels
  if (requested.rte == Rte::kMpi) {
    launch = rte::DetectLauncher(env);
    world = std::make_unique<rte::MpiWorld>();
    FitToWorld(*world, launch, requested);
  }
  Result result;
  result.options = Normalize(requested);
  const Options& o = result.options;
  result.provenance = rte::Provenance(o.argv, RteJson(o, world.get(), launch));
  Timer timer = Timer::Calibrate();
  Fabric fabric(FabricConfigFor(o));
  rte::Team team = FormTeam(o, world.get(), progress);
  if (!team.is_root()) {
    ServeRoot(fabric, timer, o, team.root(), progress);
    result.peer = true;
    result.device = fabric.DeviceJson();
    result.timer = timer.ToJson();
    return result;
  }
  const std::vector<Channel*> peers = team.peers();
  fabric.AcceptPeers(peers, o.bind, static_cast<uint16_t>(o.port + 1));
  progress << "connected " << o.peers << " peer(s) via " << fabric.cm_method()
           << "\n";
  result.device = fabric.DeviceJson();
  result.ranks = RankMap(team, fabric, progress);
  Measure(fabric, peers, timer, o, progress, result);
  // Confidence times the timer during the run too: a second measurement
  // after the run shows whether its overhead drifted.
  timer.RemeasureOverhead(20000);
  result.timer = timer.ToJson();
  for (Channel* c : peers) {
    try {
      internal::SendMessage(*c, internal::Quit{});
    } catch (const std::exception&) {
    }
  }
  return result;
}

nlohmann::json RunBenchmark(const Options& options, std::ostream& progress) {
  return ToJson(Run(options, progress));
}

}  // namespace verbsbench
