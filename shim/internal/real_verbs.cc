#include "shim/internal/real_verbs.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>

namespace verbsemu::shim::internal {
namespace {

std::mutex g_mu;
RealVerbs g_table;
std::atomic<bool> g_complete{false};
std::atomic<bool> g_fake{false};

void* Lookup(const char* name, const char* version,
             const char* library = "libibverbs.so.1") {
  void* p = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
  if (p != nullptr) return p;
  // The library loaded privately (RTLD_LOCAL) by the application's stack:
  // RTLD_NEXT cannot see it, its handle can.
  void* handle = dlopen(library, RTLD_NOLOAD | RTLD_LAZY);
  if (handle == nullptr) return nullptr;
  p = version ? dlvsym(handle, name, version) : dlsym(handle, name);
  dlclose(handle);  // NOLOAD handle: only drops the reference we just took
  return p;
}

template <class F>
void Resolve(F*& slot, const char* name, const char* version) {
  if (slot == nullptr) slot = reinterpret_cast<F*>(Lookup(name, version));
}

void ResolveAll(RealVerbs& t) {
  Resolve(t.open_device, "ibv_open_device", "IBVERBS_1.1");
  Resolve(t.close_device, "ibv_close_device", "IBVERBS_1.1");
  Resolve(t.create_qp, "ibv_create_qp", "IBVERBS_1.1");
  Resolve(t.modify_qp, "ibv_modify_qp", "IBVERBS_1.1");
  Resolve(t.query_qp, "ibv_query_qp", "IBVERBS_1.1");
  Resolve(t.destroy_qp, "ibv_destroy_qp", "IBVERBS_1.1");
  Resolve(t.create_cq, "ibv_create_cq", "IBVERBS_1.1");
  Resolve(t.destroy_cq, "ibv_destroy_cq", "IBVERBS_1.1");
  Resolve(t.get_cq_event, "ibv_get_cq_event", "IBVERBS_1.1");
  Resolve(t.qp_to_qp_ex, "ibv_qp_to_qp_ex", "IBVERBS_1.6");
  Resolve(t.query_port, "ibv_query_port", "IBVERBS_1.1");
  Resolve(t.query_gid, "ibv_query_gid", "IBVERBS_1.1");
  Resolve(t.alloc_pd, "ibv_alloc_pd", "IBVERBS_1.1");
  Resolve(t.dealloc_pd, "ibv_dealloc_pd", "IBVERBS_1.1");
  Resolve(t.reg_mr, "ibv_reg_mr", "IBVERBS_1.1");
  Resolve(t.dereg_mr, "ibv_dereg_mr", "IBVERBS_1.1");
  Resolve(t.create_ah, "ibv_create_ah", "IBVERBS_1.1");
  Resolve(t.destroy_ah, "ibv_destroy_ah", "IBVERBS_1.1");
  Resolve(t.verbs_open_device, "verbs_open_device", nullptr);
  Resolve(t.verbs_uninit_context, "verbs_uninit_context", nullptr);
  Resolve(t.verbs_set_ops, "verbs_set_ops", nullptr);
  Resolve(t.ibv_cmd_destroy_qp, "ibv_cmd_destroy_qp", nullptr);
  if (t.rdma_core_version == 0 && t.open_device != nullptr) {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(t.open_device), &info) != 0 &&
        info.dli_fname != nullptr) {
      char resolved[PATH_MAX];
      const char* path = realpath(info.dli_fname, resolved);
      t.rdma_core_version =
          RdmaCoreVersionFromPath(path ? path : info.dli_fname);
    }
  }
}

bool Complete(const RealVerbs& t) {
  return t.open_device && t.close_device && t.create_qp && t.modify_qp &&
         t.destroy_qp && t.create_cq && t.destroy_cq && t.get_cq_event &&
         t.alloc_pd && t.dealloc_pd && t.reg_mr && t.dereg_mr && t.create_ah &&
         t.destroy_ah;
}

}  // namespace

const RealVerbs& Real() {
  if (g_complete.load(std::memory_order_acquire)) return g_table;
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_complete.load(std::memory_order_relaxed) &&
      !g_fake.load(std::memory_order_relaxed)) {
    ResolveAll(g_table);
    if (Complete(g_table)) g_complete.store(true, std::memory_order_release);
  }
  return g_table;
}

bool RealVerbsAreFake() { return g_fake.load(std::memory_order_acquire); }

void* LookupProvider(const char* library, const char* name,
                     const char* version) {
  return Lookup(name, version, library);
}

void SetRealVerbsForTesting(const RealVerbs& fake) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_table = fake;
  g_fake.store(true);
  g_complete.store(true, std::memory_order_release);
}

int RdmaCoreVersionFromPath(const char* path) {
  if (path == nullptr) return 0;
  const char* p = std::strstr(path, "libibverbs.so.1.");
  if (p == nullptr) return 0;
  p += std::strlen("libibverbs.so.1.");
  // ABI minor, then the rdma-core release: "14.44.0".
  const char* dot = std::strchr(p, '.');
  if (dot == nullptr) return 0;
  return std::atoi(dot + 1);
}

}  // namespace verbsemu::shim::internal
