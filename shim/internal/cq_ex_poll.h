// Extended CQs in defer mode. An application that polls an ibv_cq_ex
// (ibv_start_poll, ibv_next_poll, ibv_end_poll, ibv_wc_read_*, as UCX and
// libfabric do) sees the shim's own completions (defer_synth.h) as
// ibv_poll_cq returns them: after the provider's, once its CQ has nothing
// more, one at a time, with the fields an ibv_wc of theirs carries. The
// provider's poll functions in the CQ are replaced by the shim's, which
// call the provider's saved ones.
#ifndef VERBSEMU_SHIM_INTERNAL_CQ_EX_POLL_H_
#define VERBSEMU_SHIM_INTERNAL_CQ_EX_POLL_H_

#include <infiniband/verbs.h>

namespace verbsemu::shim::internal {

// Wraps `cq`'s polls; false when it could not (out of memory, the table of
// extended CQs full): the CQ is left as the provider made it.
bool WrapCqEx(ibv_cq_ex* cq) noexcept;
// `cq` is being destroyed: its own functions go back in (should the
// provider refuse to destroy it, they serve its polls). Whether it was
// wrapped.
bool ForgetCqEx(ibv_cq* cq) noexcept;

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_CQ_EX_POLL_H_
