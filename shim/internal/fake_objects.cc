// The fake device's plain objects: GIDs, PDs (and parent domains), MRs and
// address handles, each kept alive by the device and counted live.
#include "shim/internal/fake_objects.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace verbsemu::shim::internal {
namespace {

// Keeps `obj` alive in the device's list `owned` and counts it live.
template <class T, class Live>
T* Keep(FakeDevice* d, std::vector<std::unique_ptr<T>>& owned, Live& live,
        std::unique_ptr<T> obj) {
  T* raw = obj.get();
  std::lock_guard<std::mutex> lock(d->mu);
  owned.push_back(std::move(obj));
  live.fetch_add(1);
  return raw;
}

}  // namespace

// GID `index` of a port is RoCE's IPv4-mapped ::ffff:10.HOST.PORT.INDEX+1
// (HOST: the device's gid_host, 0 unless a test sets it).
int FakeQueryGid(ibv_context* c, uint8_t port, int index, ibv_gid* gid) {
  std::memset(gid, 0, sizeof(*gid));
  gid->raw[10] = 0xff;
  gid->raw[11] = 0xff;
  gid->raw[12] = 10;
  gid->raw[13] = c != nullptr ? FakeOwner(c)->gid_host : 0;
  gid->raw[14] = port;
  gid->raw[15] = static_cast<uint8_t>(index + 1);
  return 0;
}

ibv_pd* FakeAllocPd(ibv_context* c) {
  FakeDevice* d = FakeOwner(c);
  auto pd = std::make_unique<ibv_pd>();
  pd->context = c;
  return Keep(d, d->pds, d->live_pds, std::move(pd));
}

// A parent domain (with or without a thread domain) is a PD to the fake.
ibv_pd* FakeAllocParentDomain(ibv_context* c,
                              ibv_parent_domain_init_attr* attr) {
  return attr->pd != nullptr ? FakeAllocPd(c) : nullptr;
}

int FakeDeallocPd(ibv_pd* pd) {
  FakeOwner(pd->context)->live_pds.fetch_sub(1);
  return 0;
}

ibv_mr* FakeRegMr(ibv_pd* pd, void* addr, size_t len, int) {
  FakeDevice* d = FakeOwner(pd->context);
  auto mr = std::make_unique<ibv_mr>();
  mr->context = pd->context;
  mr->pd = pd;
  mr->addr = addr;
  mr->length = len;
  mr->lkey = 0x1234;
  return Keep(d, d->mrs, d->live_mrs, std::move(mr));
}

int FakeDeregMr(ibv_mr* mr) {
  FakeOwner(mr->context)->live_mrs.fetch_sub(1);
  return 0;
}

ibv_ah* FakeCreateAh(ibv_pd* pd, ibv_ah_attr*) {
  FakeDevice* d = FakeOwner(pd->context);
  auto ah = std::make_unique<ibv_ah>();
  ah->context = pd->context;
  ah->pd = pd;
  return Keep(d, d->ahs, d->live_ahs, std::move(ah));
}

int FakeDestroyAh(ibv_ah* ah) {
  FakeOwner(ah->context)->live_ahs.fetch_sub(1);
  return 0;
}

int FakeQueryPortEx(ibv_context* c, uint8_t, ibv_port_attr* attr, size_t) {
  FakeDevice* d = FakeOwner(c);
  std::memset(attr, 0, sizeof(*attr));
  attr->state = IBV_PORT_ACTIVE;
  attr->active_speed = d->active_speed;
  attr->active_width = d->active_width;
  attr->active_mtu = d->active_mtu;
  attr->max_mtu = IBV_MTU_4096;
  return 0;
}

int FakeQueryPort(ibv_context* c, uint8_t port, ibv_port_attr* attr) {
  return FakeQueryPortEx(c, port, attr, sizeof(*attr));
}

}  // namespace verbsemu::shim::internal
