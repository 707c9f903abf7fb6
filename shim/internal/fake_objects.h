// The fake device's plain objects (fake_device.h): GIDs, PDs and parent
// domains, MRs and address handles.
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_OBJECTS_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_OBJECTS_H_

#include <infiniband/verbs.h>

#include "shim/internal/fake_device.h"

namespace verbsemu::shim::internal {

inline FakeDevice* FakeOwner(ibv_context* c) {
  return reinterpret_cast<FakeContext*>(verbs_get_ctx(c))->owner;
}

// GID `index` of a port is RoCE's IPv4-mapped ::ffff:10.HOST.PORT.INDEX+1
// (HOST: the device's gid_host, 0 unless a test sets it).
int FakeQueryGid(ibv_context* c, uint8_t port, int index, ibv_gid* gid);
ibv_pd* FakeAllocPd(ibv_context* c);
// A parent domain (with or without a thread domain) is a PD to the fake.
ibv_pd* FakeAllocParentDomain(ibv_context* c,
                              ibv_parent_domain_init_attr* attr);
int FakeDeallocPd(ibv_pd* pd);
ibv_mr* FakeRegMr(ibv_pd* pd, void* addr, size_t len, int access);
int FakeDeregMr(ibv_mr* mr);
ibv_ah* FakeCreateAh(ibv_pd* pd, ibv_ah_attr* attr);
int FakeDestroyAh(ibv_ah* ah);
// A port as the device's knobs describe it.
int FakeQueryPortEx(ibv_context* c, uint8_t port, ibv_port_attr* attr,
                    size_t size);
int FakeQueryPort(ibv_context* c, uint8_t port, ibv_port_attr* attr);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_OBJECTS_H_
