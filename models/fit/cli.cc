#include "models/fit/cli.h"

#include <iostream>
#include <string>
#include <vector>

#include "version/tool_version.h"

namespace verbsemu::fit {
namespace po = boost::program_options;

int RunInputTool(int argc, char** argv, const InputTool& tool) {
  const std::vector<std::string> args =
      argc > 1 ? std::vector<std::string>(argv + 1, argv + argc)
               : std::vector<std::string>();
  return cli::Run(std::string(tool.name) + ": error", std::cerr, [&] {
    po::variables_map vm;
    try {
      vm = cli::Parse(args, tool.options, {"input"});
    } catch (const UsageError& e) {
      throw UsageError(std::string(e.what()) + " (" + tool.usage + ")");
    }
    if (vm.count("version")) return version::Print(tool.name);
    if (vm.count("help")) {
      std::cout << cli::Help(tool.usage, tool.options);
      return 0;
    }
    if (!vm.count("input")) {
      throw UsageError(std::string("no input file (") + tool.usage + ")");
    }
    return tool.run(vm);
  });
}

}  // namespace verbsemu::fit
