#include "tools/fit/cli.h"

#include <exception>
#include <iostream>

#include "version/tool_version.h"

namespace verbsemu::fit {
namespace po = boost::program_options;
namespace {

int Fail(const InputTool& tool, const std::string& msg, int code) {
  std::cerr << tool.name << ": error: " << msg << "\n";
  return code;
}

int Parse(int argc, char** argv, const InputTool& tool) {
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>());
  po::options_description all;
  all.add(tool.options).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  try {
    po::store(
        po::command_line_parser(argc, argv).options(all).positional(pos).run(),
        vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return Fail(tool, std::string(e.what()) + " (" + tool.usage + ")", 2);
  }
  if (vm.count("version")) return version::Print(tool.name);
  if (vm.count("help")) {
    std::cout << tool.usage << "\n" << tool.options;
    return 0;
  }
  if (!vm.count("input")) {
    return Fail(tool, std::string("no input file (") + tool.usage + ")", 2);
  }
  try {
    return tool.run(vm);
  } catch (const UsageError& e) {
    return Fail(tool, e.what(), 2);
  } catch (const std::exception& e) {  // LopInputError and anything else
    return Fail(tool, e.what(), 1);
  }
}

}  // namespace

int RunInputTool(int argc, char** argv, const InputTool& tool) {
  try {
    return Parse(argc, argv, tool);
  } catch (...) {
    return Fail(tool, "unexpected failure", 1);
  }
}

}  // namespace verbsemu::fit
