// A latency drawn from a law on the fake device: each post's delay follows
// the law, the report gives the drawn delays' quantiles and seed, and a
// seed draws the same delays again.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "emulate/delay_distribution.h"
#include "emulate/tsc.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/report.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

class LatencyLawTest : public ShimTest {
 protected:
  void ConfigureLaw(const char* text, uint64_t seed) {
    emulate::Config c;
    c.latency = *emulate::ParseDelayDistribution(text);
    c.latency_ns = c.latency.Mean();
    c.seed = seed;
    Configure(c);
  }
  // Each post's delay from the call to the device, in ns.
  std::vector<double> PostDelays(int n) {
    FakeDevice d("fake0");
    Res r = MakeQp(d, false);
    Chain ch(1, 64);
    std::vector<double> delays;
    for (int i = 0; i < n; ++i) {
      const uint64_t t0 = emulate::ReadTsc();
      EXPECT_EQ(Post(r.qp, ch), 0);
      delays.push_back(Cal().TicksToNs(d.last_post_tsc.load() - t0));
    }
    EXPECT_EQ(DestroyQp(r.qp), 0);
    return delays;
  }
  static std::string DrawnLine() {
    const std::string report = ReportText();
    const size_t at = report.find("delays drawn");
    return at == std::string::npos
               ? ""
               : report.substr(at, report.find('\n', at) - at);
  }
};

TEST_F(LatencyLawTest, EachPostWaitsADrawAndTheReportSaysWhich) {
  ConfigureLaw("uniform(20us,60us)", 7);
  const std::vector<double> delays = PostDelays(2000);
  // A loose bound (a unit test, not a benchmark): a constant 40 us would be
  // at KS 0.5, and preemption only moves a few posts.
  const auto law = *emulate::ParseDelayDistribution("uniform(20us,60us)");
  EXPECT_LT(emulate::KsDistance(delays, law), 0.1);
  const std::string line = DrawnLine();
  EXPECT_NE(line.find("delays drawn 2000: mean "), std::string::npos) << line;
  EXPECT_NE(line.find("(seed 7)"), std::string::npos) << line;
  EXPECT_NE(ReportText().find("latency uniform(20us,60us) (mean 40us)"),
            std::string::npos)
      << ReportText();
}

TEST_F(LatencyLawTest, ASeedDrawsTheSameDelaysAgain) {
  ConfigureLaw("lognormal(5us,0.5)", 11);
  PostDelays(300);
  const std::string first = DrawnLine();
  ResetForTesting();
  ConfigureLaw("lognormal(5us,0.5)", 11);
  PostDelays(300);
  EXPECT_EQ(DrawnLine(), first);
  ResetForTesting();
  ConfigureLaw("lognormal(5us,0.5)", 12);
  PostDelays(300);
  EXPECT_NE(DrawnLine(), first);
}

}  // namespace
}  // namespace verbsemu::shim::internal
