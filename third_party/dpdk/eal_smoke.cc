// Proves the DPDK wrapper links and runs: starts EAL with no hugepages, no
// PCI and a null vdev, then cleans up. Exit 0 means DPDK works here.
#include <rte_eal.h>
#include <rte_ethdev.h>

#include <cstdio>
#include <string>
#include <vector>

int main() {
  // rte_eal_init may permute argv, so it gets writable copies.
  std::vector<std::string> args = {
      "eal_smoke",      "--no-huge",        "--no-pci",     "--no-shconf",
      "--no-telemetry", "--vdev=net_null0", "--log-level=1"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  if (rte_eal_init(static_cast<int>(argv.size()), argv.data()) < 0) {
    std::fprintf(stderr, "eal_smoke: rte_eal_init failed\n");
    return 1;
  }
  const unsigned ports = rte_eth_dev_count_avail();
  std::printf("eal_smoke: EAL up, %u ethdev port(s)\n", ports);
  rte_eal_cleanup();
  return ports == 1 ? 0 : 1;
}
