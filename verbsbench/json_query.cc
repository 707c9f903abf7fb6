#include "verbsbench/json_query.h"

#include <exception>
#include <nlohmann/json.hpp>

namespace verbsbench {

JsonQuery QueryJson(std::string_view text,
                    const std::optional<std::string>& pointer, bool size) {
  JsonQuery q;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    q.status = 1;
    q.error = std::string("invalid JSON: ") + e.what();
    return q;
  }
  if (!pointer) return q;
  const nlohmann::json* v = nullptr;
  try {
    v = &j.at(nlohmann::json::json_pointer(*pointer));
  } catch (const std::exception&) {
    q.status = 3;
    q.error = *pointer + " not found";
    return q;
  }
  if (size) {
    q.out = std::to_string(v->size()) + "\n";
  } else if (v->is_string()) {
    q.out = v->get<std::string>() + "\n";
  } else {
    // Replace invalid UTF-8 instead of throwing.
    q.out = v->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
            "\n";
  }
  return q;
}

}  // namespace verbsbench
