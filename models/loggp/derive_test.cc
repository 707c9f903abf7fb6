#include "models/loggp/derive.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/loggp/contract.h"
#include "models/loggp/formulas.h"

namespace verbsbench::loggp {
namespace {

using nlohmann::json;

// A point made from known LogGP parameters by formulas.h's model.
struct Truth {
  double os = 900, o_r = 300, latency = 2000, g = 1500, big_g = 0.5;
  double size = 1024, delay = 10000;
  int n = 16;
  double Gap() const { return std::max(os, GapModel(g, big_g, size)); }
  double Prtt10() const {
    return 2 * (os + latency + (size - 1) * big_g + o_r);
  }
};

json Stat(double median, double min) {
  return {{lop::key::kMinNs, min}, {lop::key::kMedianNs, median}};
}

json PointFrom(const Truth& t) {
  const double prtt_10 = t.Prtt10();
  return {{key::kDelayNs, t.delay},
          {key::kPrtt10, Stat(prtt_10, prtt_10 - 10)},
          {key::kPrttN0, Stat(prtt_10 + (t.n - 1) * t.Gap(), prtt_10 - 10)},
          {key::kPrttNd,
           Stat(prtt_10 + (t.n - 1) * (t.os + t.delay), prtt_10 - 10)},
          {key::kOr, Stat(t.o_r, t.o_r)}};
}

TEST(DerivePoint, RecoversTheModelsParameters) {
  const Truth t;
  const json d = DerivePoint(PointFrom(t), t.n).at(lop::key::kMedianNs);
  EXPECT_NEAR(d.at(key::kGapNs).get<double>(), 1500 + 1023 * 0.5, 1e-9);
  EXPECT_NEAR(d.at(key::kOsNs).get<double>(), t.os, 1e-9);
  EXPECT_NEAR(d.at(key::kOrNs).get<double>(), t.o_r, 1e-9);
  EXPECT_TRUE(d.at(key::kDelayCoversGap).get<bool>());
  EXPECT_FALSE(d.at(key::kSenderBound).get<bool>());
  const double latency = Latency(d.at(key::kHalfRttNs).get<double>(), t.os,
                                 t.o_r, t.size, t.big_g);
  EXPECT_NEAR(latency, t.latency, 1e-9);
}

TEST(DerivePoint, FlagsATrainPacedByTheSender) {
  Truth t;
  t.os = 4000;  // above g + (s-1)G = 2011.5
  const json d = DerivePoint(PointFrom(t), t.n).at(lop::key::kMedianNs);
  EXPECT_NEAR(d.at(key::kGapNs).get<double>(), 4000, 1e-9);
  EXPECT_TRUE(d.at(key::kSenderBound).get<bool>());
}

TEST(DerivePoint, FlagsADelayShorterThanTheGap) {
  Truth t;
  t.delay = 1000;
  const json d = DerivePoint(PointFrom(t), t.n).at(lop::key::kMedianNs);
  EXPECT_FALSE(d.at(key::kDelayCoversGap).get<bool>());
}

TEST(DerivePoint, DerivesEachStatisticFromItsOwnValues) {
  const Truth t;
  const json d = DerivePoint(PointFrom(t), t.n).at(lop::key::kMinNs);
  // Every minimum round is prtt_10 - 10: no gap, o_s = -d.
  EXPECT_NEAR(d.at(key::kGapNs).get<double>(), 0, 1e-9);
  EXPECT_NEAR(d.at(key::kOsNs).get<double>(), -t.delay, 1e-9);
}

TEST(DerivePoint, ThrowsOnAPointWithoutMeasurements) {
  EXPECT_THROW(DerivePoint(json{{key::kDelayNs, 1.0}}, 16), json::exception);
}

TEST(Definitions, CoverEveryMeasuredAndDerivedKey) {
  const json defs = Definitions();
  for (const char* k : kMeasured) EXPECT_TRUE(defs.contains(k)) << k;
  for (const char* k : {key::kGapNs, key::kOsNs, key::kHalfRttNs,
                        key::kDelayCoversGap, key::kSenderBound}) {
    EXPECT_TRUE(defs.contains(k)) << k;
  }
}

}  // namespace
}  // namespace verbsbench::loggp
