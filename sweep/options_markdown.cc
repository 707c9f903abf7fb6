// Prints the options table of docs/sweep.md, to paste between its
// "sweep-options" markers: bazel run //sweep:options_markdown.
#include <cstdio>

#include "sweep/options.h"

int main() {
  std::fputs(verbsemu::sweep::SweepOptionsMarkdown().c_str(), stdout);
  return 0;
}
