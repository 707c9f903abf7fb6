// json_get FILE [POINTER [--size]]: checks that FILE is valid JSON and prints
// the value at the JSON pointer (strings unquoted), or the size of an array
// or object. For shell tests in the guest, which has no python or jq.
// Exit: 0 ok, 1 invalid JSON or unreadable, 2 usage, 3 pointer not found.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

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
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const std::exception& e) {
    std::cerr << "json_get: invalid JSON in " << argv[1] << ": " << e.what()
              << "\n";
    return 1;
  }
  if (argc == 2) return 0;
  const nlohmann::json* v = nullptr;
  try {
    v = &j.at(nlohmann::json::json_pointer(argv[2]));
  } catch (const std::exception& e) {
    std::cerr << "json_get: " << argv[2] << " not found\n";
    return 3;
  }
  if (argc == 4) {
    std::cout << v->size() << "\n";
  } else if (v->is_string()) {
    std::cout << v->get<std::string>() << "\n";
  } else {
    std::cout << v->dump() << "\n";
  }
  return 0;
}
