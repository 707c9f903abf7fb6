// json_get FILE [POINTER [--size]]: checks that FILE is valid JSON and prints
// the value at the JSON pointer (strings unquoted), or the size of an array
// or object. For shell tests in the guest, which has no python or jq.
// Exit: 0 ok, 1 invalid JSON or unreadable, 2 usage, 3 pointer not found.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "verbsbench/json_query.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4 || (argc == 4 && std::string(argv[3]) != "--size")) {
    std::cerr << "usage: json_get FILE [POINTER [--size]]\n";
    return 2;
  }
  std::ifstream f(argv[1]);
  if (!f) {
    std::cerr << "json_get: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream text;
  text << f.rdbuf();
  const std::optional<std::string> pointer =
      argc >= 3 ? std::optional<std::string>(argv[2]) : std::nullopt;
  const verbsbench::JsonQuery q =
      verbsbench::QueryJson(text.str(), pointer, argc == 4);
  if (q.status == 1) {
    std::cerr << "json_get: " << argv[1] << ": " << q.error << "\n";
  } else if (q.status != 0) {
    std::cerr << "json_get: " << q.error << "\n";
  }
  std::cout << q.out;
  return q.status;
}
