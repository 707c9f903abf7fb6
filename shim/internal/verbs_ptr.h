// RAII owners for the shim's own verbs objects: each destroys through the
// real libibverbs function that its RealVerbs member names.
#ifndef VERBSEMU_SHIM_INTERNAL_VERBS_PTR_H_
#define VERBSEMU_SHIM_INTERNAL_VERBS_PTR_H_

#include <infiniband/verbs.h>

#include <memory>

#include "shim/internal/real_verbs.h"

namespace verbsemu::shim::internal {

template <auto Destroy>
struct RealDeleter {
  template <typename T>
  void operator()(T* p) const {
    if (Real().*Destroy) (Real().*Destroy)(p);
  }
};
using PdPtr = std::unique_ptr<ibv_pd, RealDeleter<&RealVerbs::dealloc_pd>>;
using CqPtr = std::unique_ptr<ibv_cq, RealDeleter<&RealVerbs::destroy_cq>>;
using QpPtr = std::unique_ptr<ibv_qp, RealDeleter<&RealVerbs::destroy_qp>>;
using MrPtr = std::unique_ptr<ibv_mr, RealDeleter<&RealVerbs::dereg_mr>>;
using AhPtr = std::unique_ptr<ibv_ah, RealDeleter<&RealVerbs::destroy_ah>>;
using ContextPtr =
    std::unique_ptr<ibv_context, RealDeleter<&RealVerbs::close_device>>;

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_VERBS_PTR_H_
