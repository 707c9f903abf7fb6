// Asks libmlx5's direct-verbs gate about every RDMA device (or, with
// --fake NAME, about a device that exists only in this process, which only
// the shim may answer: libmlx5 itself must not see it). Prints
// "NAME mlx5dv_is_supported=true|false" per device. Used by the shim's
// export test and the test bed: under the shim, emulated devices say false.
#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--fake") == 0) {
    ibv_device fake{};
    std::snprintf(fake.name, sizeof fake.name, "%s", argv[2]);
    std::printf("%s mlx5dv_is_supported=%s\n", fake.name,
                mlx5dv_is_supported(&fake) ? "true" : "false");
    return 0;
  }
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr) {
    std::fprintf(stderr, "mlx5dv_probe: ibv_get_device_list failed\n");
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    std::printf("%s mlx5dv_is_supported=%s\n", list[i]->name,
                mlx5dv_is_supported(list[i]) ? "true" : "false");
  }
  ibv_free_device_list(list);
  return 0;
}
