// The loggp JSON contract, written once: verbsbench writes it, loggpfit
// reads it. One point per message size (Netgauge's PRTT method):
//   {"loggp":{"n":16,
//             "points":[{"op":"send","size":8,"inline":true,"delay_ns":..,
//                        "prtt_1_0":{<stat>},"prtt_n_0":{<stat>},
//                        "prtt_n_d":{<stat>},"o_r":{<stat>},
//                        "derived":{"min_ns":{<derived>},
//                                   "median_ns":{<derived>}}}],
//             "definitions":{..}}}
// <stat> has lop's point keys without "p" (lop::key: min_ns, median_ns,
// mean_ns, p99_ns, samples, stats, raw_ns); <derived> is
//   {"gap_ns","o_s_ns","o_r_ns","half_rtt_ns","delay_covers_gap",
//    "sender_bound"} (derive.h).
#ifndef VERBSEMU_MODELS_LOGGP_CONTRACT_H_
#define VERBSEMU_MODELS_LOGGP_CONTRACT_H_

#include <array>

namespace verbsbench::loggp {

inline constexpr char kSection[] = "loggp";
inline constexpr char kPoints[] = "points";
inline constexpr char kDefinitions[] = "definitions";

namespace key {
// The section.
inline constexpr char kN[] = "n";
// A point.
inline constexpr char kOp[] = "op";
inline constexpr char kSize[] = "size";
inline constexpr char kInline[] = "inline";
inline constexpr char kDelayNs[] = "delay_ns";
inline constexpr char kPrtt10[] = "prtt_1_0";
inline constexpr char kPrttN0[] = "prtt_n_0";
inline constexpr char kPrttNd[] = "prtt_n_d";
inline constexpr char kOr[] = "o_r";
inline constexpr char kDerived[] = "derived";
// A derived entry (per statistic).
inline constexpr char kGapNs[] = "gap_ns";
inline constexpr char kOsNs[] = "o_s_ns";
inline constexpr char kOrNs[] = "o_r_ns";
inline constexpr char kHalfRttNs[] = "half_rtt_ns";
inline constexpr char kDelayCoversGap[] = "delay_covers_gap";
inline constexpr char kSenderBound[] = "sender_bound";
}  // namespace key

// The measured quantities of a point, in the order they are measured.
inline constexpr std::array<const char*, 4> kMeasured = {
    key::kPrtt10, key::kPrttN0, key::kPrttNd, key::kOr};

}  // namespace verbsbench::loggp

#endif  // VERBSEMU_MODELS_LOGGP_CONTRACT_H_
