// Where the defer mode's progress thread runs (VERBSEMU_DEFER_CPU). A
// thread inherits the CPU set of the thread that creates it: under
// `mpirun --bind-to core` that is the rank's own core, where the helper
// competes with a rank that busy-polls (a hand-over then waits for a
// scheduler tick, or the helper's spun tails take the rank's CPU). By
// default the thread therefore runs on the node's other CPUs when the
// application is bound to a part of them.
#ifndef VERBSEMU_SETTINGS_DEFER_CPU_H_
#define VERBSEMU_SETTINGS_DEFER_CPU_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::shim::internal {

struct DeferCpu {
  enum class Kind {
    kAuto,     // off the application's CPUs when others are online
    kInherit,  // the creating thread's CPUs
    kList,     // these CPUs
  };
  Kind kind = Kind::kAuto;
  std::vector<int> cpus;  // kList: sorted, unique
};

// "auto", "inherit", or a CPU list as the kernel prints one ("3", "0-3,8").
std::optional<DeferCpu> ParseDeferCpu(std::string_view text, std::string* why);
// A CPU list ("0-3,8" form), sorted and unique; nullopt on anything else.
std::optional<std::vector<int>> ParseCpuList(std::string_view text);
std::string FormatCpuList(const std::vector<int>& cpus);

// The CPUs the thread should run on, given the CPUs it inherited (`own`)
// and the online ones; empty: keep what it inherited.
std::vector<int> ChooseDeferCpus(const DeferCpu& setting,
                                 const std::vector<int>& own,
                                 const std::vector<int>& online);

// Applies the setting to the calling thread (the progress thread, at its
// start); returns the report's words: where it runs, and why there.
std::string PlaceThisThread(const DeferCpu& setting);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SETTINGS_DEFER_CPU_H_
