// verbsbench: raw-verbs latency, bandwidth and LoP benchmarks. See
// docs/verbsbench.md.
#include <iostream>

#include "verbsbench/cli.h"

int main(int argc, char** argv) {
  return verbsbench::CliMain(argc, argv, std::cout, std::cerr);
}
