#include <iostream>
#include <string>
#include <vector>

#include "models/contention/contentionfit.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return verbsemu::contention::RunContentionfit(args, std::cout, std::cerr);
}
