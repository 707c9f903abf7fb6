// Proves the DPDK wrapper links and runs: starts EAL with no hugepages, no
// PCI and a null vdev, then cleans up. Exit 0 means DPDK works here.
#include <rte_eal.h>
#include <rte_ethdev.h>

#include <array>
#include <cstdio>

int main() {
  std::array<char*, 7> args = {
      const_cast<char*>("eal_smoke"),      const_cast<char*>("--no-huge"),
      const_cast<char*>("--no-pci"),       const_cast<char*>("--no-shconf"),
      const_cast<char*>("--no-telemetry"), const_cast<char*>("--vdev=net_null0"),
      const_cast<char*>("--log-level=1"),
  };
  if (rte_eal_init(static_cast<int>(args.size()), args.data()) < 0) {
    std::fprintf(stderr, "eal_smoke: rte_eal_init failed\n");
    return 1;
  }
  const unsigned ports = rte_eth_dev_count_avail();
  std::printf("eal_smoke: EAL up, %u ethdev port(s)\n", ports);
  rte_eal_cleanup();
  return ports == 1 ? 0 : 1;
}
