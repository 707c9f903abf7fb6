#include "shim/internal/loopback.h"

#include <algorithm>
#include <cstring>

#include "shim/internal/state.h"

namespace verbsemu::shim::internal {
namespace {

// The most GID table entries looked at (RoCE ports have a few per netdev
// address; IB ports 128).
constexpr int kMaxGidsLooked = 256;

bool SameGid(const ibv_gid& a, const ibv_gid& b) {
  return std::memcmp(a.raw, b.raw, sizeof a.raw) == 0;
}

bool IsZero(const ibv_gid& g) {
  return std::all_of(std::begin(g.raw), std::end(g.raw),
                     [](uint8_t b) { return b == 0; });
}

// Whether `gid` is in `port`'s GID table: the source GID the address vector
// names first (NCCL's flush QP sends to that very GID), then the table.
bool PortHasGid(ibv_context* ctx, uint8_t port, const ibv_ah_attr& av,
                int table_len) {
  const auto query = Real().query_gid;
  if (query == nullptr || IsZero(av.grh.dgid)) return false;
  ibv_gid gid;
  if (query(ctx, port, av.grh.sgid_index, &gid) == 0 &&
      SameGid(gid, av.grh.dgid)) {
    return true;
  }
  for (int i = 0; i < std::min(table_len, kMaxGidsLooked); ++i) {
    if (query(ctx, port, i, &gid) == 0 && SameGid(gid, av.grh.dgid)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool NamesOwnPort(ibv_context* ctx, uint8_t port, const ibv_ah_attr& av) {
  ibv_port_attr attr{};
  const bool have_port =
      Real().query_port != nullptr && Real().query_port(ctx, port, &attr) == 0;
  if (av.is_global) {
    return PortHasGid(ctx, port, av, have_port ? attr.gid_tbl_len : 0);
  }
  // IB without a GRH: the port's LIDs are LID .. LID + 2^LMC - 1.
  if (!have_port || attr.lid == 0 || av.dlid == 0) return false;
  const unsigned offset = static_cast<unsigned>(av.dlid - attr.lid);
  return av.dlid >= attr.lid && offset < (1u << attr.lmc);
}

void DetectLoopback(QpState* q) {
  if (q->type != IBV_QPT_RC && q->type != IBV_QPT_UC) return;
  ibv_ah_attr av;
  uint8_t port;
  bool to_itself;
  {
    std::lock_guard<std::mutex> lock(q->mu);
    if (!q->have_av) return;
    av = q->av;
    port = q->port;
    to_itself = q->dest_qpn == q->qpn;
  }
  // Connected to itself, on its own port. Another QP on the same port is
  // another process's or another rank's, reached through the NIC as a
  // peer on another node would be: it is emulated (VERBSEMU_TOPOLOGY can
  // give such a peer a class of its own). A topology class that names the
  // destination is what the user asked for.
  const bool loopback = to_itself &&
                        q->link_class.load(std::memory_order_relaxed) < 0 &&
                        NamesOwnPort(q->ctx->ctx, port, av);
  const bool was = q->loopback.exchange(loopback, std::memory_order_relaxed);
  if (!loopback || was) return;
  Engine& e = E();
  e.have_loopback.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(e.mu);
  ++e.loopback_qps;
}

}  // namespace verbsemu::shim::internal
