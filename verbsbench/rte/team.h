// How the root and its peers meet: over TCP (the root listens on --port,
// peers connect to HOST) or under a launcher over MPI (rank 0 is the root).
// Either way each peer first sends its identity, and the root puts the
// peers in a deterministic order and numbers them: rank 1..P.
#ifndef VERBSBENCH_RTE_TEAM_H_
#define VERBSBENCH_RTE_TEAM_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "verbsbench/internal/channel.h"
#include "verbsbench/options.h"
#include "verbsbench/rte/mpi_world.h"

namespace verbsbench::rte {

struct Team {
  int rank = 0;  // 0: the root
  // Root: the channels to ranks 1..P, in rank order. Peer: one, to the root.
  std::vector<std::unique_ptr<internal::Channel>> channels;
  // Root: each rank's identity (rte::LocalIdentity() with "rank"; over TCP
  // also the peer's "address"), rank 0 first. Peer: empty.
  std::vector<nlohmann::json> members;

  bool is_root() const { return rank == 0; }
  std::vector<internal::Channel*> peers() const;
  internal::Channel& root() const;
};

// TCP root: listens on bind:port and takes options.peers connections, then
// orders the peers by host name, requested device (-d) and pid, since the
// order of arrival differs from run to run.
Team TcpRoot(const Options& options, nlohmann::json self,
             std::ostream& progress);
// TCP peer: connects to options.host:options.port.
Team TcpPeer(const Options& options, const nlohmann::json& self);
// MPI: rank 0 is the root and ranks 1..size−1 its peers, in rank order.
Team MpiTeam(const MpiWorld& world, nlohmann::json self, double timeout_s);

}  // namespace verbsbench::rte

#endif  // VERBSBENCH_RTE_TEAM_H_
