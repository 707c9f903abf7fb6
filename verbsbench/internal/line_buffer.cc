#include "verbsbench/internal/line_buffer.h"

#include <stdexcept>

namespace verbsbench::internal {

void LineBuffer::Append(std::string_view bytes, const std::string& from) {
  if (start_ > 0 && start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);  // amortized: read lines leave in bulk
    complete_ -= start_;
    start_ = 0;
  }
  // Only the new bytes are searched, so a long line costs linear time.
  const size_t nl = bytes.rfind('\n');
  if (nl != std::string_view::npos) complete_ = buffer_.size() + nl + 1;
  buffer_.append(bytes);
  // Only the unterminated tail can grow without bound.
  if (buffer_.size() - complete_ > max_) {
    throw std::runtime_error("a control message from " + from +
                             " is longer than " + std::to_string(max_) +
                             " bytes: not a verbsbench peer of this version?");
  }
}

std::optional<std::string> LineBuffer::Next() {
  if (!HasLine()) return std::nullopt;
  const size_t nl = buffer_.find('\n', start_);  // < complete_
  std::string line = buffer_.substr(start_, nl - start_);
  start_ = nl + 1;
  if (start_ == buffer_.size()) {
    buffer_.clear();
    start_ = complete_ = 0;
  }
  return line;
}

}  // namespace verbsbench::internal
