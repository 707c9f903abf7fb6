// Injectable clock for tests (Abseil SimulatedClock style): time moves only
// when the test advances it, or by `relax_step` ticks per Relax() so that a
// spin loop terminates deterministically.
#ifndef VERBSEMU_EMULATE_SIMULATED_CLOCK_H_
#define VERBSEMU_EMULATE_SIMULATED_CLOCK_H_

#include <cstdint>

namespace verbsemu::emulate {

class SimulatedClock {
 public:
  explicit SimulatedClock(uint64_t start = 0, uint64_t relax_step = 1)
      : now_(start), relax_step_(relax_step) {}

  uint64_t Now() {
    ++reads_;
    return now_;
  }
  void Relax() {
    ++relaxes_;
    now_ += relax_step_;
  }
  void Advance(uint64_t ticks) { now_ += ticks; }

  uint64_t reads() const { return reads_; }
  uint64_t relaxes() const { return relaxes_; }

 private:
  uint64_t now_;
  uint64_t relax_step_;
  uint64_t reads_ = 0;
  uint64_t relaxes_ = 0;
};

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_SIMULATED_CLOCK_H_
