// Test helper for shim/vm_stacks_tests.bats: opens an RDMA device through a
// privately dlopen'ed libibverbs (RTLD_LOCAL, symbols by dlvsym on the handle,
// as NCCL does), so only the shim's verbs_open_device hook can see it.
//   dlopen_probe [DEVICE] [--hold]
// DEVICE defaults to the first. Prints "opened DEVICE"; with --hold, keeps
// the device open until SIGTERM or SIGINT, then closes it and exits 0 (the
// shim's report at exit then covers the time the device was held).
#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

namespace {

volatile std::sig_atomic_t stop = 0;
void OnStop(int) { stop = 1; }

void HoldUntilStopped() {
  struct sigaction sa = {};
  sa.sa_handler = OnStop;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::fflush(stdout);
  while (stop == 0) pause();
}

}  // namespace

int main(int argc, char** argv) {
  const char* want = nullptr;
  bool hold = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--hold") == 0) {
      hold = true;
    } else {
      want = argv[i];
    }
  }
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
  int pick = 0;
  while (want != nullptr && pick < n &&
         std::strcmp(list[pick]->name, want) != 0) {
    ++pick;
  }
  if (pick == n) {
    std::fprintf(stderr, "no RDMA device named %s\n", want);
    return 1;
  }
  ibv_context* ctx = open(list[pick]);
  if (ctx == nullptr) {
    std::fprintf(stderr, "ibv_open_device failed\n");
    return 1;
  }
  std::printf("opened %s\n", list[pick]->name);
  if (hold) HoldUntilStopped();
  close(ctx);
  free_list(list);
  return 0;
}
