// verbsbench: raw-verbs latency, bandwidth and LoP benchmarks. See
// docs/verbsbench.md.
#include <iostream>

#include "verbsbench/cli.h"
#include "version/tool_version.h"

int main(int argc, char** argv) {
  if (verbsemu::version::Asked(argc, argv)) {
    return verbsemu::version::Print("verbsbench");
  }
  return verbsbench::CliMain(argc, argv, std::cout, std::cerr);
}
