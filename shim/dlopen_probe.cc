// Test helper for shim/vm_tests.sh: opens the first RDMA device through a
// privately dlopen'ed libibverbs (RTLD_LOCAL, symbols by dlvsym on the handle,
// as NCCL does), so only the shim's verbs_open_device hook can see it.
// Prints "opened DEVICE" and exits 0 on success.
#include <dlfcn.h>
#include <infiniband/verbs.h>

#include <cstdio>

int main() {
  void* h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  using GetList = ibv_device** (*)(int*);
  using FreeList = void (*)(ibv_device**);
  using Open = ibv_context* (*)(ibv_device*);
  using Close = int (*)(ibv_context*);
  auto get_list = reinterpret_cast<GetList>(
      dlvsym(h, "ibv_get_device_list", "IBVERBS_1.1"));
  auto free_list = reinterpret_cast<FreeList>(
      dlvsym(h, "ibv_free_device_list", "IBVERBS_1.1"));
  auto open =
      reinterpret_cast<Open>(dlvsym(h, "ibv_open_device", "IBVERBS_1.1"));
  auto close =
      reinterpret_cast<Close>(dlvsym(h, "ibv_close_device", "IBVERBS_1.1"));
  if (!get_list || !free_list || !open || !close) {
    std::fprintf(stderr, "dlvsym failed\n");
    return 1;
  }
  int n = 0;
  ibv_device** list = get_list(&n);
  if (list == nullptr || n == 0) {
    std::fprintf(stderr, "no RDMA device\n");
    return 1;
  }
  ibv_context* ctx = open(list[0]);
  if (ctx == nullptr) {
    std::fprintf(stderr, "ibv_open_device failed\n");
    return 1;
  }
  std::printf("opened %s\n", list[0]->name);
  close(ctx);
  free_list(list);
  return 0;
}
