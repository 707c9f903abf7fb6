#include "verbsbench/internal/protocol.h"

#include <stdexcept>

namespace verbsbench::internal {
namespace {

using nlohmann::json;

json WithType(const char* type, json body = json::object()) {
  body["type"] = type;
  return body;
}

void EncodeMessage(const Message& m, json& j) {
  j["op"] = Name(m.op);
  j["size"] = m.size;
  j["inline"] = m.inl;
}

Message DecodeMessage(const json& j) {
  Message m;
  const std::string op = j.at("op").get<std::string>();
  const std::optional<Op> parsed = Parse<Op>(op);
  if (!parsed) throw std::runtime_error("unknown operation '" + op + "'");
  m.op = *parsed;
  m.size = j.at("size").get<size_t>();
  m.inl = j.at("inline").get<bool>();
  if (m.size == 0) throw std::runtime_error("message size 0");
  return m;
}

}  // namespace

json Quit::Encode() const { return WithType(kType); }
Quit Quit::Decode(const json&) { return {}; }

json Echo::Encode() const {
  json j = WithType(kType, {{"count", count}});
  EncodeMessage(message, j);
  return j;
}
Echo Echo::Decode(const json& j) {
  return {DecodeMessage(j), j.at("count").get<uint64_t>()};
}

json Initiate::Encode() const {
  json j = WithType(kType, {{"count", count},
                            {"warmup", warmup},
                            {"cycle", cycle},
                            {"raw_limit", raw_limit}});
  EncodeMessage(message, j);
  return j;
}
Initiate Initiate::Decode(const json& j) {
  Initiate c;
  c.message = DecodeMessage(j);
  c.count = j.at("count").get<uint64_t>();
  c.warmup = j.at("warmup").get<uint64_t>();
  c.cycle = j.at("cycle").get<uint64_t>();
  c.raw_limit = j.at("raw_limit").get<uint64_t>();
  if (c.cycle == 0) throw std::runtime_error("cycle 0");
  return c;
}

json Sink::Encode() const { return WithType(kType, {{"count", count}}); }
Sink Sink::Decode(const json& j) { return {j.at("count").get<uint64_t>()}; }

json Stream::Encode() const {
  json j = WithType(kType, {{"count", count},
                            {"window", window},
                            {"post_list", post_list},
                            {"cq_mod", cq_mod},
                            {"expect_recv", expect_recv}});
  EncodeMessage(message, j);
  return j;
}
Stream Stream::Decode(const json& j) {
  Stream c;
  c.message = DecodeMessage(j);
  c.count = j.at("count").get<uint64_t>();
  c.window = j.at("window").get<uint32_t>();
  c.post_list = j.at("post_list").get<uint32_t>();
  c.cq_mod = j.at("cq_mod").get<uint32_t>();
  c.expect_recv = j.at("expect_recv").get<uint64_t>();
  return c;
}

Command DecodeCommand(const json& j) {
  const std::string type = j.is_object() ? j.value("type", "") : "";
  try {
    if (type == Quit::kType) return Quit::Decode(j);
    if (type == Echo::kType) return Echo::Decode(j);
    if (type == Initiate::kType) return Initiate::Decode(j);
    if (type == Sink::kType) return Sink::Decode(j);
    if (type == Stream::kType) return Stream::Decode(j);
  } catch (const json::exception& e) {
    throw std::runtime_error("bad command '" + type +
                             "' from root: " + e.what());
  }
  throw std::runtime_error("unknown command '" + type + "' from root");
}

json Ready::Encode() const { return WithType(kType); }
Ready Ready::Decode(const json&) { return {}; }

json Done::Encode() const {
  json j = WithType(kType);
  if (elapsed_ns) j["elapsed_ns"] = *elapsed_ns;
  return j;
}
Done Done::Decode(const json& j) {
  Done d;
  if (j.contains("elapsed_ns")) d.elapsed_ns = j.at("elapsed_ns").get<double>();
  return d;
}

json PeerResult::Encode() const {
  return WithType(kType, {{"recorder", recorder.ToJson()}});
}
PeerResult PeerResult::Decode(const json& j) {
  return {Recorder::FromJson(j.at("recorder"))};
}

json Error::Encode() const { return WithType(kType, {{"message", message}}); }
Error Error::Decode(const json& j) {
  return {j.value("message", std::string("error"))};
}

}  // namespace verbsbench::internal
