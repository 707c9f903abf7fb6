// Reads the one-way latency histogram out of a `verbsbench lat --json`
// report for replay:FILE (emulate/delay_distribution.h).
#ifndef VERBSEMU_EMULATE_INTERNAL_REPLAY_REPORT_H_
#define VERBSEMU_EMULATE_INTERNAL_REPLAY_REPORT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/delay_distribution.h"

namespace verbsemu::emulate::internal {

// Ends every refusal about a replay file: how to write it right.
inline constexpr std::string_view kReplayHow =
    "; replay:FILE takes the report of verbsbench lat --json";

// The replay of the first result whose metric is "rtt/2" in `text`, the
// contents of `path`; nullopt with one reason in `why` on anything else
// (never throws).
std::optional<DelayDistribution> ReplayFromReport(const std::string& path,
                                                  const std::string& text,
                                                  std::string* why);

// Puts `bins` in order without the empty ones; "" when they make a
// histogram, else what is wrong with them (for DelayDistribution::
// FromHistogram).
std::string CheckBins(std::vector<DelayDistribution::Bin>* bins);

// `why` = text when `why` is given.
void Say(std::string* why, std::string text);

}  // namespace verbsemu::emulate::internal

#endif  // VERBSEMU_EMULATE_INTERNAL_REPLAY_REPORT_H_
