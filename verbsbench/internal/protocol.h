// The typed control protocol between the root and its peers: each message a
// type with its own Encode/Decode (JSON on the wire, "type" names it).
// Root → peer commands: Quit, Echo, EchoUd, Initiate, Sink, Stream, Train.
// Peer → root
// replies: Ready, Done, PeerResult, Error.
#ifndef VERBSBENCH_INTERNAL_PROTOCOL_H_
#define VERBSBENCH_INTERNAL_PROTOCOL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "verbsbench/internal/channel.h"
#include "verbsbench/options.h"
#include "verbsbench/stats.h"

namespace verbsbench::internal {

// What one data-path message is: operation, size, inline requested.
struct Message {
  Op op = Op::kSend;
  size_t size = 8;
  bool inl = false;
};

// Commands list their wire fields once, in Fields(self, visit): Encode and
// Decode are written once for all of them (protocol.cc). A Message field
// travels as "op", "size" and "inline".

// Ends the peer's serve loop.
struct Quit {
  static constexpr char kType[] = "quit";
  template <class Self, class Visit>
  static void Fields(Self&, Visit) {}
  nlohmann::json Encode() const;
  static Quit Decode(const nlohmann::json& j);
};
// Peer answers each of `count` root messages (1:n round trips).
struct Echo {
  static constexpr char kType[] = "echo";
  Message message;
  uint64_t count = 0;
  template <class Self, class Visit>
  static void Fields(Self& self, Visit visit) {
    visit("message", self.message);
    visit("count", self.count);
  }
  nlohmann::json Encode() const;
  static Echo Decode(const nlohmann::json& j);
};
// Peer answers each of `count` root messages on its UD QP with a UD send
// to the root (the list-posted 1:n round).
struct EchoUd {
  static constexpr char kType[] = "echo_ud";
  Message message;
  uint64_t count = 0;
  template <class Self, class Visit>
  static void Fields(Self& self, Visit visit) {
    visit("message", self.message);
    visit("count", self.count);
  }
  nlohmann::json Encode() const;
  static EchoUd Decode(const nlohmann::json& j);
};
// What a command whose receiver records samples carries: the message,
// rounds (warm-up first) and the Recorder's shape.
struct Recorded {
  Message message;
  uint64_t count = 0, warmup = 0, cycle = 1000, raw_limit = 0;
  template <class Self, class Visit>
  static void Fields(Self& self, Visit visit) {
    visit("message", self.message);
    visit("count", self.count);
    visit("warmup", self.warmup);
    visit("cycle", self.cycle);
    visit("raw_limit", self.raw_limit);
  }
};
// Peer initiates `count` round trips and times them (n:1).
struct Initiate : Recorded {
  static constexpr char kType[] = "initiate";
  nlohmann::json Encode() const;
  static Initiate Decode(const nlohmann::json& j);
};
// Peer consumes `count` sends.
struct Sink {
  static constexpr char kType[] = "sink";
  uint64_t count = 0;
  template <class Self, class Visit>
  static void Fields(Self& self, Visit visit) {
    visit("count", self.count);
  }
  nlohmann::json Encode() const;
  static Sink Decode(const nlohmann::json& j);
};
// Peer streams too (bidirectional bw).
struct Stream {
  static constexpr char kType[] = "stream";
  Message message;
  uint64_t count = 0;
  uint32_t window = 1, post_list = 1, cq_mod = 1;
  uint64_t expect_recv = 0;
  template <class Self, class Visit>
  static void Fields(Self& self, Visit visit) {
    visit("message", self.message);
    visit("count", self.count);
    visit("window", self.window);
    visit("post_list", self.post_list);
    visit("cq_mod", self.cq_mod);
    visit("expect_recv", self.expect_recv);
  }
  nlohmann::json Encode() const;
  static Stream Decode(const nlohmann::json& j);
};
// Peer answers the last of each train of n root messages with one message
// (Netgauge's PRTT(n,d,s)), `count` trains. With settle_ns > 0 it also
// times o_r: after a train's first message it waits settle_ns, long enough
// for the rest to arrive, then times retiring each of the other n-1 (poll,
// replacement receive), and answers PeerResult (per message) for Done.
struct Train : Recorded {
  static constexpr char kType[] = "train";
  uint32_t n = 2;
  double settle_ns = 0;
  template <class Self, class Visit>
  static void Fields(Self& self, Visit visit) {
    Recorded::Fields(self, visit);
    visit("n", self.n);
    visit("settle_ns", self.settle_ns);
  }
  nlohmann::json Encode() const;
  static Train Decode(const nlohmann::json& j);
};
using Command = std::variant<Quit, Echo, EchoUd, Initiate, Sink, Stream, Train>;
// Throws std::runtime_error on an unknown or malformed command.
Command DecodeCommand(const nlohmann::json& j);

struct Ready {
  static constexpr char kType[] = "ready";
  template <class Self, class Visit>
  static void Fields(Self&, Visit) {}
  nlohmann::json Encode() const;
  static Ready Decode(const nlohmann::json& j);
};
struct Done {
  static constexpr char kType[] = "done";
  std::optional<double> elapsed_ns;  // Stream: the peer's own time
  nlohmann::json Encode() const;
  static Done Decode(const nlohmann::json& j);
};
struct PeerResult {
  static constexpr char kType[] = "result";
  Recorder recorder;
  nlohmann::json Encode() const;
  static PeerResult Decode(const nlohmann::json& j);
};
struct Error {
  static constexpr char kType[] = "error";
  std::string message;
  nlohmann::json Encode() const;
  static Error Decode(const nlohmann::json& j);
};

template <class M>
void SendMessage(Channel& channel, const M& message) {
  channel.Send(message.Encode());
}

// Next message, which must be an M; a peer's Error becomes an exception.
template <class M>
M ExpectMessage(Channel& channel, double timeout_s) {
  try {
    return M::Decode(channel.Expect(M::kType, timeout_s));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("protocol error: bad '" + std::string(M::kType) +
                             "' from " + channel.remote() + ": " + e.what());
  }
}

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_PROTOCOL_H_
