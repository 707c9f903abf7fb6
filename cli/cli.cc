#include "cli/cli.h"

#include <cstddef>
#include <exception>
#include <map>
#include <sstream>
#include <utility>

namespace verbsemu::cli {
namespace po = boost::program_options;

namespace {

// Takes the positional arguments after the named ones, to refuse them by
// name.
constexpr const char* kUnexpected = "cli-unexpected-argument";

// `text` with every byte outside printable ASCII shown as '?': an error
// line stays one line whatever the user typed.
std::string Printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return out;
}

// Reaches the protected substitutions of Boost's error_with_option_name
// (a pointer to member named through a class derived from it; no object of
// that class is ever made).
struct SubstitutionsOf : po::error_with_option_name {
  static auto Member() { return &SubstitutionsOf::m_substitutions; }
};

// Whether `value` holds "%KEY%" for one of the substitutions' keys, or the
// two Boost computes from them.
bool HoldsPlaceholder(const std::string& value,
                      const std::map<std::string, std::string>& subs) {
  if (value.find('%') == std::string::npos) return false;
  for (const char* computed : {"canonical_option", "prefix"}) {
    if (value.find("%" + std::string(computed) + "%") != std::string::npos) {
      return true;
    }
  }
  for (const auto& [key, unused] : subs) {
    if (value.find("%" + key + "%") != std::string::npos) return true;
  }
  return false;
}

// The options of `parsed` in their order, the positional ones left out.
void ListGiven(const po::parsed_options& parsed, Given* given) {
  given->clear();
  for (const po::option& o : parsed.options) {
    if (o.position_key >= 0 || o.string_key == kUnexpected) continue;
    given->emplace_back(o.string_key,
                        o.value.empty() ? std::string() : o.value.front());
  }
}

po::variables_map Store(const std::vector<std::string>& args,
                        const po::options_description& options,
                        std::initializer_list<const char*> positional,
                        int style, Given* given = nullptr) {
  po::options_description all;
  all.add(options);
  po::positional_options_description pos;
  for (const char* name : positional) {
    all.add_options()(name, po::value<std::string>());
    pos.add(name, 1);
  }
  all.add_options()(kUnexpected, po::value<std::vector<std::string>>());
  pos.add(kUnexpected, -1);
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(args)
                                          .options(all)
                                          .positional(pos)
                                          .style(style)
                                          .run();
    po::store(parsed, vm);
    po::notify(vm);
    if (given != nullptr) ListGiven(parsed, given);
  } catch (po::error& e) {
    throw UsageError(ErrorText(e));
  }
  if (vm.count(kUnexpected)) {
    throw UsageError(
        "unexpected argument '" +
        Printable(vm[kUnexpected].as<std::vector<std::string>>().front()) +
        "'");
  }
  return vm;
}

// Whether `arg`, an option given without "=VALUE", takes the next argument
// as its value.
bool ValueFollows(const std::string& arg,
                  const po::options_description& options) {
  const bool is_long = arg.starts_with("--");
  const po::option_description* d = nullptr;
  try {
    d = options.find_nothrow(is_long ? arg.substr(2) : arg.substr(0, 2), false);
  } catch (const po::error&) {
    // An ambiguous name (even "--=" is one, as a prefix of every option):
    // Boost's parse refuses it in its own words.
    return false;
  }
  return d != nullptr && d->semantic()->max_tokens() > 0 &&
         (is_long || arg.size() == 2);
}

// What Boost gets for the option args[*i] and its value (*i moved past
// it): a long option and its value as one "--NAME=VALUE", so that no value
// is read as an option, and an empty value as "--NAME" "".
std::vector<std::string> OptionTokens(const std::vector<std::string>& args,
                                      size_t* i,
                                      const po::options_description& options) {
  const std::string& a = args[*i];
  if (a.starts_with("--") && a.ends_with('=') &&
      ValueFollows(a.substr(0, a.size() - 1), options)) {
    return {a.substr(0, a.size() - 1), ""};
  }
  if (a.find('=') != std::string::npos || !ValueFollows(a, options) ||
      *i + 1 == args.size()) {
    return {a};
  }
  const std::string& value = args[++*i];
  if (a.starts_with("--") && !value.empty()) return {a + "=" + value};
  return {a, value};
}

}  // namespace

std::string ErrorText(po::error& e) {
  if (auto* named = dynamic_cast<po::error_with_option_name*>(&e)) {
    std::map<std::string, std::string>& subs =
        named->*SubstitutionsOf::Member();
    for (auto& [key, value] : subs) {
      if (!HoldsPlaceholder(value, subs)) continue;
      for (char& c : value) {
        if (c == '%') c = '?';
      }
    }
  }
  return e.what();
}

po::typed_value<bool>* Switch() {
  return po::value<bool>()->zero_tokens()->implicit_value(true, "");
}

po::variables_map Parse(const std::vector<std::string>& args,
                        const po::options_description& options,
                        std::initializer_list<const char*> positional,
                        Names names) {
  int style = po::command_line_style::default_style;
  if (names == Names::kWhole) style &= ~po::command_line_style::allow_guessing;
  return Store(args, options, positional, style);
}

po::variables_map ParseWithCommand(const std::vector<std::string>& args,
                                   const po::options_description& options,
                                   std::vector<std::string>* command,
                                   Given* given) {
  std::vector<std::string> head;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "--") {
      ++i;
      break;
    }
    if (!args[i].starts_with('-')) break;
    for (std::string& token : OptionTokens(args, &i, options)) {
      head.push_back(std::move(token));
    }
  }
  command->assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  return Store(head, options, {},
               po::command_line_style::default_style &
                   ~po::command_line_style::allow_guessing,
               given);
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

namespace {

// `text` with every '|' escaped, for a cell of a Markdown table.
std::string Cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string MarkdownTable(const po::options_description& options) {
  std::string out = "| option | meaning |\n| --- | --- |\n";
  for (const auto& d : options.options()) {
    const std::string name =
        d->canonical_display_name(po::command_line_style::allow_long);
    const std::string value = d->format_parameter();
    std::string names = "`" + Cell(name + (value.empty() ? "" : " " + value));
    names += "`";
    const std::string dash =
        d->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (dash != name && dash.size() == 2) names += ", `" + dash + "`";
    out += "| " + names + " | " + Cell(d->description()) + " |\n";
  }
  return out;
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
