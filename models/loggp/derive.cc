#include "models/loggp/derive.h"

#include "models/loggp/contract.h"
#include "models/loggp/formulas.h"

namespace verbsbench::loggp {

using nlohmann::json;

json DerivePoint(const json& point, int n) {
  const double delay = point.at(key::kDelayNs).get<double>();
  json out = json::object();
  for (const char* stat : kDerivedStats) {
    const auto at = [&](const char* measured) {
      return point.at(measured).at(stat).get<double>();
    };
    const double prtt_10 = at(key::kPrtt10);
    const double gap = Gap(at(key::kPrttN0), prtt_10, n);
    const double os = SendOverhead(at(key::kPrttNd), prtt_10, n, delay);
    out[stat] = {{key::kGapNs, gap},
                 {key::kOsNs, os},
                 {key::kOrNs, at(key::kOr)},
                 {key::kHalfRttNs, prtt_10 / 2},
                 {key::kDelayCoversGap, delay >= gap},
                 {key::kSenderBound, SenderBound(gap, os)}};
  }
  return out;
}

json Definitions() {
  return {
      {key::kPrtt10, "PRTT(1,0,s): one message, one reply of s bytes (ns)"},
      {key::kPrttN0,
       "PRTT(n,0,s): n messages posted back to back, one reply after the "
       "n-th (ns)"},
      {key::kPrttNd,
       "PRTT(n,d,s): n messages, delay_ns between a post's return and the "
       "next post, one reply (ns)"},
      {key::kOr,
       "o_r: at the server, retiring one receive that has already arrived "
       "(ibv_poll_cq) and posting its replacement (ibv_post_recv), per "
       "message (ns)"},
      {key::kDelayNs,
       "d of PRTT(n,d,s), unless set: the larger of the median PRTT(1,0,s) "
       "(Netgauge's) and twice the median gap"},
      {key::kGapNs, "(PRTT(n,0,s) - PRTT(1,0,s))/(n-1) = max(o_s, g + (s-1)G)"},
      {key::kOsNs, "o_s = (PRTT(n,d,s) - PRTT(1,0,s))/(n-1) - d"},
      {key::kHalfRttNs, "PRTT(1,0,s)/2 = o_s + L + (s-1)G + o_r"},
      {key::kDelayCoversGap,
       "d >= gap: the delayed train was paced by d, so o_s holds"},
      {key::kSenderBound,
       "gap within 10% of o_s: the train was paced by the sender's CPU and "
       "bounds g + (s-1)G from above only"},
  };
}

}  // namespace verbsbench::loggp
