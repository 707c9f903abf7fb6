#include "cli/cli.h"

#include <exception>
#include <sstream>

namespace verbsemu::cli {
namespace po = boost::program_options;

po::variables_map Parse(const std::vector<std::string>& args,
                        const po::options_description& options,
                        std::initializer_list<const char*> positional) {
  po::options_description all;
  all.add(options);
  po::positional_options_description pos;
  for (const char* name : positional) {
    all.add_options()(name, po::value<std::string>());
    pos.add(name, 1);
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

std::string Help(std::string_view usage,
                 const po::options_description& options) {
  std::ostringstream out;
  out << usage << "\n" << options;
  return out.str();
}

int Run(std::string_view prefix, std::ostream& err,
        const std::function<int()>& body) noexcept {
  try {
    try {
      return body();
    } catch (const UsageError& e) {
      err << prefix << ": " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      err << prefix << ": " << e.what() << "\n";
      return 1;
    } catch (...) {
      err << prefix << ": unexpected failure\n";
      return 1;
    }
  } catch (...) {  // the stream itself threw
    return 1;
  }
}

std::string SubcommandUsage(std::string_view program,
                            std::span<const Subcommand> table) {
  std::string out;
  for (const Subcommand& c : table) {
    out += out.empty() ? "usage: " : "       ";
    out += std::string(program) + " " + std::string(c.name);
    if (!c.synopsis.empty()) out += " " + std::string(c.synopsis);
    if (!c.summary.empty()) out += "  (" + std::string(c.summary) + ")";
    out += "\n";
  }
  return out;
}

namespace {

// `text` with every byte outside printable ASCII shown as '?': an error
// line stays one line whatever the user typed.
std::string Printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return out;
}

}  // namespace

const Subcommand* FindSubcommand(std::span<const Subcommand> table,
                                 std::string_view name, std::string* why) {
  std::string names;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == name) return &table[i];
    if (i > 0) names += i + 1 == table.size() ? " or " : ", ";
    names += table[i].name;
  }
  *why = "unknown command '" + Printable(name) + "' (expected " + names + ")";
  return nullptr;
}

}  // namespace verbsemu::cli
