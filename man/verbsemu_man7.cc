// Prints verbsemu(7), the settings of libverbsemu.so, from the shim's knob
// table.
#include <cstdio>

#include "man/knobs_page.h"
#include "version/tool_version.h"

int main(int argc, char** argv) {
  if (verbsemu::version::Asked(argc, argv)) {
    return verbsemu::version::Print("verbsemu_man7");
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: verbsemu_man7 > verbsemu.7\n");
    return 2;
  }
  const std::string page = verbsemu::man::KnobsPage(
      verbsemu::shim::Knobs(),
      "verbsemu " + std::string(verbsemu::version::Release()));
  return std::fputs(page.c_str(), stdout) < 0 ? 1 : 0;
}
