#include "shim/internal/warnings.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <mutex>

#include "shim/internal/no_destructor.h"
#include "shim/internal/try_for.h"

namespace verbsemu::shim::internal {
namespace {

static_assert(kWarningCount <= 256, "WarningCode is a uint8_t");

// The warnings so far. Its lock is only tried for a while: a fork while
// another thread held it leaves it taken in the child, which then records
// nothing rather than hang.
struct Record {
  std::mutex mu;
  std::vector<RecordedWarning> items;
};

Record& R() {
  static NoDestructor<Record> r;
  return *r.get();
}

// Per warning code: given once already (FirstTime).
std::array<std::atomic<bool>, kWarningCount>& Given() {
  static NoDestructor<std::array<std::atomic<bool>, kWarningCount>> given;
  return *given.get();
}

constexpr auto kLockLimit = std::chrono::milliseconds(50);

std::unique_lock<std::mutex> Lock(Record& r) {
  std::unique_lock<std::mutex> lock(r.mu, std::defer_lock);
  (void)TryFor(lock, std::chrono::steady_clock::now() + kLockLimit);
  return lock;
}

// Calls out(piece) for the template's text and each argument in turn.
template <class Out>
void Expand(std::string_view tmpl, WarningArgs args, Out&& out) {
  const std::string_view* arg = args.begin();
  for (size_t at = 0; at < tmpl.size();) {
    const size_t hole = tmpl.find("{}", at);
    if (hole == std::string_view::npos) {
      out(tmpl.substr(at));
      return;
    }
    out(tmpl.substr(at, hole - at));
    if (arg != args.end()) out(*arg++);
    at = hole + 2;
  }
}

}  // namespace

const WarningInfo& Info(WarningCode code) {
  return kWarnings[static_cast<size_t>(code)];
}

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "warning";
}

std::string WarningText(WarningCode code, WarningArgs args) {
  std::string text;
  Expand(Info(code).text, args, [&](std::string_view s) { text += s; });
  return text;
}

size_t WarningTextTo(WarningCode code, WarningArgs args, char* buf,
                     size_t cap) noexcept {
  if (cap == 0) return 0;
  size_t n = 0;
  Expand(Info(code).text, args, [&](std::string_view s) {
    const size_t take = std::min(s.size(), cap - 1 - n);
    s.copy(buf + n, take);
    n += take;
  });
  buf[n] = '\0';
  return n;
}

bool RecordWarning(WarningCode code, std::string_view text) {
  Record& r = R();
  const std::unique_lock<std::mutex> lock = Lock(r);
  if (!lock.owns_lock()) return false;
  for (const RecordedWarning& w : r.items) {
    if (w.code == code && w.text == text) return true;
  }
  if (r.items.size() >= kMaxRecordedWarnings) return false;
  r.items.push_back({code, std::string(text)});
  return true;
}

std::string NoteWarning(WarningCode code, WarningArgs args) {
  std::string text = WarningText(code, args);
  (void)RecordWarning(code, text);
  return text;
}

void PrintWarning(std::string_view text) {
  std::string msg = "verbsemu: ";
  msg += text;
  msg += '\n';
  ssize_t ignored = write(2, msg.data(), msg.size());
  (void)ignored;
}

void Warn(WarningCode code, WarningArgs args) {
  PrintWarning(NoteWarning(code, args));
}

bool FirstTime(WarningCode code) noexcept {
  return !Given()[static_cast<size_t>(code)].exchange(true);
}

void WarnOnce(WarningCode code, WarningArgs args) {
  if (FirstTime(code)) Warn(code, args);
}

std::vector<RecordedWarning> RecordedWarnings() {
  Record& r = R();
  const std::unique_lock<std::mutex> lock = Lock(r);
  if (!lock.owns_lock()) return {};
  return r.items;
}

void ClearRecordedWarningsForTesting() {
  Record& r = R();
  std::lock_guard<std::mutex> lock(r.mu);
  r.items.clear();
  for (std::atomic<bool>& given : Given()) given.store(false);
}

}  // namespace verbsemu::shim::internal
