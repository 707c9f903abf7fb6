#include "shim/internal/faults.h"

#include <array>
#include <atomic>
#include <system_error>
#include <utility>

namespace verbsemu::shim::internal {
namespace {

std::array<std::atomic<bool>, static_cast<size_t>(Fault::kCount)>& Flags() {
  static std::array<std::atomic<bool>, static_cast<size_t>(Fault::kCount)>
      flags{};
  return flags;
}

}  // namespace

bool FaultInjected(Fault f) noexcept {
  return Flags()[static_cast<size_t>(f)].load(std::memory_order_relaxed);
}

void InjectFaultForTesting(Fault f, bool on) noexcept {
  Flags()[static_cast<size_t>(f)].store(on, std::memory_order_relaxed);
}

bool TryStartThread(std::thread* t, std::function<void()> body) noexcept {
  if (FaultInjected(Fault::kThreadStart)) return false;
  try {
    *t = std::thread(std::move(body));
    return true;
  } catch (const std::system_error&) {
    return false;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

}  // namespace verbsemu::shim::internal
