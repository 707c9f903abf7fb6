// Added one-way delays drawn from a law rather than one constant: what
// VERBSEMU_LATENCY accepts. Device-independent; the shim draws a value per
// message with Sample(RandomBits(seed, stream, index)).
//
// Text forms (durations as units::ParseDurationNs reads them: "10us",
// "1500ns", "0.5ms"; a space may follow each comma):
//   D                        a constant, as before ("2us", "0")
//   normal(MEAN,SD)          SD > 0 (for SD 0 write the constant)
//   lognormal(MEDIAN,SIGMA)  MEDIAN > 0; SIGMA, a plain number > 0, is the
//                            standard deviation of the log
//   uniform(A,B)             A < B; A may be 0
//   pareto(SCALE,SHAPE)      SCALE > 0, SHAPE a plain number > 0; x >= SCALE
//   replay:FILE              the one-way (rtt/2) histogram of the first such
//                            result in FILE, a `verbsbench lat --json` report
//
// Every delay lies in [0, 1 s], the limit the constant has always had: every
// duration parameter is at most 1 s, and a drawn value below 0 becomes 0 (the
// normal's left tail) and one above 1 s becomes 1 s (the right tails of
// normal, lognormal and pareto). These clamps are atoms of the law as
// sampled, and Cdf, CdfBelow, Quantile and Mean describe that law, clamps
// included, so a test of the sampler compares it with what it really draws.
// A replay draws a bin by its share of the count, then uniformly within the
// bin: its CDF is piecewise linear.
#ifndef VERBSEMU_EMULATE_DELAY_DISTRIBUTION_H_
#define VERBSEMU_EMULATE_DELAY_DISTRIBUTION_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace verbsemu::emulate {

inline constexpr double kMaxDelayNs = 1e9;  // one second

// Reads a whole file for replay:FILE; nullopt with `why` set when it cannot.
// Injectable so tests and the fuzzer hand over text without a file system.
using FileReader = std::function<std::optional<std::string>(
    const std::string& path, std::string* why)>;
std::optional<std::string> ReadWholeFile(const std::string& path,
                                         std::string* why);

class DelayDistribution {
 public:
  enum class Family {
    kConstant,
    kNormal,
    kLogNormal,
    kUniform,
    kPareto,
    kReplay
  };

  // One bin of a replayed histogram: `count` samples spread evenly over
  // [lo_ns, hi_ns).
  struct Bin {
    double lo_ns = 0;
    double hi_ns = 0;
    double count = 0;
    friend bool operator==(const Bin&, const Bin&) = default;
  };

  DelayDistribution();  // the constant 0
  // `ns` is clamped to [0, kMaxDelayNs] (NaN gives 0).
  static DelayDistribution Constant(double ns);

  Family family() const { return family_; }
  bool is_constant() const { return family_ == Family::kConstant; }

  double Mean() const;               // ns, of the law as sampled
  double Cdf(double ns) const;       // P(delay <= ns)
  double CdfBelow(double ns) const;  // P(delay < ns): differs at the atoms
  double Quantile(double u) const;   // inf{x : Cdf(x) >= u}, u in (0, 1);
                                     // u <= 0 or >= 1 give the support's ends
  double Sample(uint64_t random_bits) const;  // Quantile(UnitFromBits(bits))

  // Canonical text that parses back to an equal law: "10us",
  // "normal(10us,2us)", "lognormal(10us,0.5)", "uniform(5us,15us)",
  // "pareto(5us,2.5)"; numbers are written so they read back exactly. A
  // replay reads "replay:PATH (one-way, send 8 B, 10000 samples, mean
  // 17.3us)", and the text before its last " (" parses back.
  std::string Describe() const;

  // Equal laws: same family and parameters (for a replay, same file and bins).
  friend bool operator==(const DelayDistribution&,
                         const DelayDistribution&) = default;

  // What the parser builds, for callers that hold numbers rather than text:
  // kNormal, kLogNormal, kUniform or kPareto with the parameters of its text
  // form (durations in ns). nullopt with `why` set, phrased as the parser's,
  // when a parameter is out of range or the family is not one of those.
  static std::optional<DelayDistribution> Parametric(
      Family family, double first, double second, std::string* why = nullptr);
  // A replay of `bins` (any order; empty bins are dropped). `path` and
  // `note` ("one-way, send 8 B") are what Describe shows.
  static std::optional<DelayDistribution> FromHistogram(
      std::vector<Bin> bins, std::string path, std::string note,
      std::string* why = nullptr);

 private:
  double RawCdf(double ns) const;      // continuous families, unclamped
  double RawQuantile(double u) const;  // continuous families, unclamped
  double ReplayCdf(double ns) const;
  double ReplayQuantile(double u) const;
  double Lowest() const;   // Quantile(0)
  double Highest() const;  // Quantile(1)

  Family family_ = Family::kConstant;
  // kConstant: value; kNormal: MEAN, SD; kLogNormal: MEDIAN, SIGMA;
  // kUniform: A, B; kPareto: SCALE, SHAPE. Durations in ns.
  double first_ = 0;
  double second_ = 0;
  // kReplay only: where the bins came from, and a summary for Describe.
  std::string path_;
  std::string note_;
  std::vector<Bin> bins_;           // sorted, disjoint, every count > 0
  std::vector<double> cumulative_;  // count of bins_[0..i], inclusive
};

// Parses a delay in any of the text forms above. On refusal `why` gets one
// phrase that fits after "'TEXT' is not accepted: " and says how to write it.
// `read` opens replay:FILE.
std::optional<DelayDistribution> ParseDelayDistribution(
    std::string_view text, std::string* why = nullptr,
    const FileReader& read = ReadWholeFile);

// 64 random bits, a pure function of its arguments: a counter-based generator
// (splitmix64's finaliser keyed by seed and stream, applied to the index).
// Counter-based rather than a stateful engine because any thread can draw
// element `index` of a stream with no lock and no shared state but an atomic
// counter, and a run replays exactly from its seed whatever the thread
// interleaving was.
uint64_t RandomBits(uint64_t seed, uint64_t stream, uint64_t index);

// A uniform u in (0, 1) from the top 52 bits: ((bits >> 12) + 0.5) * 2^-52.
// 52 and not 53 bits because (2^53 - 1) + 0.5 is not a double and would
// round u up to exactly 1, the right end of the support.
double UnitFromBits(uint64_t bits);

// Kolmogorov-Smirnov distance sup |F_n - F| between the empirical law of
// `samples` (finite values) and `target`, exact at the target's atoms; 1
// when there are no samples.
double KsDistance(std::vector<double> samples, const DelayDistribution& target);

}  // namespace verbsemu::emulate

#endif  // VERBSEMU_EMULATE_DELAY_DISTRIBUTION_H_
