// The control channel's framing: bytes in, newline-terminated lines out, with
// a bound on a line's length so a peer (or anything that reaches the port)
// cannot make verbsbench buffer without limit.
#ifndef VERBSBENCH_INTERNAL_LINE_BUFFER_H_
#define VERBSBENCH_INTERNAL_LINE_BUFFER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace verbsbench::internal {

// The longest control message. A peer's result travels in one line, raw
// samples and all (about 25 bytes a sample): options.h bounds --raw-max to
// fit (kMaxRawSamples).
inline constexpr size_t kMaxControlLine = size_t{256} << 20;

class LineBuffer {
 public:
  explicit LineBuffer(size_t max_line = kMaxControlLine) : max_(max_line) {}

  // Adds received bytes. Throws std::runtime_error once a line without its
  // newline is longer than the bound (`from` names the sender).
  void Append(std::string_view bytes, const std::string& from);
  // The next whole line, without its newline.
  std::optional<std::string> Next();
  bool HasLine() const { return complete_ > start_; }

 private:
  static constexpr size_t npos = std::string::npos;
  size_t max_;
  std::string buffer_;
  size_t start_ = 0;     // where the first unread line begins
  size_t complete_ = 0;  // just after the last newline received
};

}  // namespace verbsbench::internal

#endif  // VERBSBENCH_INTERNAL_LINE_BUFFER_H_
