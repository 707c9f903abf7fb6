#include "verbsbench/internal/protocol.h"

#include <concepts>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "base/json_number.h"

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

// A field of `j`: integers checked against T's range (a float beyond it
// would make nlohmann's conversion undefined), anything else as nlohmann
// reads it (json::type_error on the wrong type).
template <class T>
T FieldOf(const json& j, const char* name) {
  const json& v = j.at(name);
  if constexpr (std::integral<T> && !std::same_as<T, bool>) {
    if (const std::optional<T> n = base::WholeNumber<T>(v)) return *n;
    throw std::runtime_error(std::string("\"") + name +
                             "\" is not a whole number in range");
  } else {
    return v.template get<T>();
  }
}

Message DecodeMessage(const json& j) {
  Message m;
  const std::string op = j.at("op").get<std::string>();
  const std::optional<Op> parsed = Parse<Op>(op);
  if (!parsed) throw std::runtime_error("unknown operation '" + op + "'");
  m.op = *parsed;
  m.size = FieldOf<size_t>(j, "size");
  m.inl = j.at("inline").get<bool>();
  if (m.size == 0) throw std::runtime_error("message size 0");
  return m;
}

// Encode/Decode of a command that lists its fields.
template <class C>
json EncodeFields(const C& c) {
  json j = WithType(C::kType);
  C::Fields(c, [&j](const char* name, const auto& value) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, Message>) {
      EncodeMessage(value, j);
    } else {
      j[name] = value;
    }
  });
  return j;
}

template <class C>
C DecodeFields(const json& j) {
  C c;
  C::Fields(c, [&j](const char* name, auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, Message>) {
      value = DecodeMessage(j);
    } else {
      value = FieldOf<T>(j, name);
    }
  });
  return c;
}

}  // namespace

// The commands with listed fields, written once.
#define VERBSBENCH_FIELDS_WIRE(T)                        \
  json T::Encode() const { return EncodeFields(*this); } \
  T T::Decode(const json& j) { return DecodeFields<T>(j); }
VERBSBENCH_FIELDS_WIRE(Quit)
VERBSBENCH_FIELDS_WIRE(Echo)
VERBSBENCH_FIELDS_WIRE(EchoUd)
VERBSBENCH_FIELDS_WIRE(Sink)
VERBSBENCH_FIELDS_WIRE(Stream)
VERBSBENCH_FIELDS_WIRE(Ready)
#undef VERBSBENCH_FIELDS_WIRE

json Initiate::Encode() const { return EncodeFields(*this); }
Initiate Initiate::Decode(const json& j) {
  Initiate c = DecodeFields<Initiate>(j);
  if (c.cycle == 0) throw std::runtime_error("cycle 0");
  return c;
}

json Train::Encode() const { return EncodeFields(*this); }
Train Train::Decode(const json& j) {
  Train c = DecodeFields<Train>(j);
  if (c.cycle == 0) throw std::runtime_error("cycle 0");
  if (c.n < 1) throw std::runtime_error("train of no messages");
  if (c.settle_ns > 0 && c.n < 2) {
    throw std::runtime_error("o_r needs a train of 2 or more messages");
  }
  if (!(c.settle_ns >= 0)) throw std::runtime_error("negative settle_ns");
  return c;
}

Command DecodeCommand(const json& j) {
  const std::string type = j.is_object() ? j.value("type", "") : "";
  try {
    if (type == Quit::kType) return Quit::Decode(j);
    if (type == Echo::kType) return Echo::Decode(j);
    if (type == EchoUd::kType) return EchoUd::Decode(j);
    if (type == Initiate::kType) return Initiate::Decode(j);
    if (type == Sink::kType) return Sink::Decode(j);
    if (type == Stream::kType) return Stream::Decode(j);
    if (type == Train::kType) return Train::Decode(j);
  } catch (const json::exception& e) {
    throw std::runtime_error("bad command '" + type +
                             "' from root: " + e.what());
  }
  throw std::runtime_error("unknown command '" + type + "' from root");
}

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
