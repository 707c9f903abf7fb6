// LogGP values derived per message size from a point's measured round trips
// (formulas.h), and the definitions block of the loggp section.
#ifndef VERBSEMU_MODELS_LOGGP_DERIVE_H_
#define VERBSEMU_MODELS_LOGGP_DERIVE_H_

#include <array>
#include <nlohmann/json.hpp>

#include "models/lop/contract.h"

namespace verbsbench::loggp {

// The statistics the derivation applies to: the minimum, and the median
// Netgauge uses.
inline constexpr std::array<const char*, 2> kDerivedStats = {
    lop::key::kMinNs, lop::key::kMedianNs};

// For each of kDerivedStats, from a point with the four measured entries,
// its delay and a train of n >= 2: {"gap_ns","o_s_ns","o_r_ns",
// "half_rtt_ns","delay_covers_gap","sender_bound"}. Throws
// nlohmann::json::exception on a point without them.
nlohmann::json DerivePoint(const nlohmann::json& point, int n);

// What each measured and derived value is (the "definitions" object).
nlohmann::json Definitions();

}  // namespace verbsbench::loggp

#endif  // VERBSEMU_MODELS_LOGGP_DERIVE_H_
