#include <iostream>
#include <string>
#include <vector>

#include "models/contention/contentionfit.h"
#include "version/tool_version.h"

int main(int argc, char** argv) {
  if (verbsemu::version::Asked(argc, argv)) {
    return verbsemu::version::Print("contentionfit");
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  return verbsemu::contention::RunContentionfit(args, std::cout, std::cerr);
}
