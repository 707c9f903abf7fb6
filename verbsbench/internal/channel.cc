#include "verbsbench/internal/channel.h"

#include <stdexcept>

namespace verbsbench::internal {

nlohmann::json Channel::Expect(const std::string& type, double timeout_s) {
  nlohmann::json m = Recv(timeout_s);
  const std::string got = m.is_object() ? m.value("type", "") : "";
  if (got == "error") {
    throw std::runtime_error("peer " + remote() + ": " +
                             m.value("message", "error"));
  }
  if (got != type) {
    throw std::runtime_error("protocol error: expected '" + type + "' from " +
                             remote() + ", got '" + got + "'");
  }
  return m;
}

}  // namespace verbsbench::internal
