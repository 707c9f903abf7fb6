// The fake device's CQ polls (fake_device.h). ibv_poll_cq returns the
// completions that are ready (the fake wire), after the faults a poll
// meets. With FakeDevice::extended_cqs set, ibv_create_cq_ex makes a CQ
// whose ibv_start_poll / ibv_next_poll / ibv_end_poll and ibv_wc_read_*
// return the same completions one at a time; without it, EOPNOTSUPP
// (counted).
#ifndef VERBSEMU_SHIM_INTERNAL_FAKE_CQ_H_
#define VERBSEMU_SHIM_INTERNAL_FAKE_CQ_H_

#include <infiniband/verbs.h>

namespace verbsemu::shim::internal {

int FakePollCq(ibv_cq* cq, int n, ibv_wc* wc);
ibv_cq_ex* FakeCreateCqEx(ibv_context* c, ibv_cq_init_attr_ex* attr);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_FAKE_CQ_H_
