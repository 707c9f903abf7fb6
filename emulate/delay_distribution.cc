#include "emulate/delay_distribution.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "emulate/internal/law_math.h"
#include "emulate/internal/replay_report.h"
#include "emulate/units.h"

namespace verbsemu::emulate {
namespace {

using Family = DelayDistribution::Family;
using internal::kReplayHow;
using internal::NormalCdf;
using internal::NormalQuantile;
using internal::Say;

constexpr std::string_view kReplayPrefix = "replay:";
constexpr std::string_view kForms =
    "write a duration such as 10us, normal(MEAN,SD), lognormal(MEDIAN,SIGMA), "
    "uniform(A,B), pareto(SCALE,SHAPE) or replay:FILE";

// How each parametric family is written.
struct Form {
  Family family;
  std::string_view name;
  std::string_view first;  // parameter names, as the header spells them
  std::string_view second;
  bool second_is_duration;  // else a plain number
  std::string_view example;
};

constexpr std::array<Form, 4> kParametricForms = {{
    {Family::kNormal, "normal", "MEAN", "SD", true, "normal(10us,2us)"},
    {Family::kLogNormal, "lognormal", "MEDIAN", "SIGMA", false,
     "lognormal(10us,0.5)"},
    {Family::kUniform, "uniform", "A", "B", true, "uniform(5us,15us)"},
    {Family::kPareto, "pareto", "SCALE", "SHAPE", false, "pareto(5us,2.5)"},
}};

const Form* FindForm(Family family) {
  for (const Form& f : kParametricForms) {
    if (f.family == family) return &f;
  }
  return nullptr;
}

const Form* FindForm(std::string_view name) {
  for (const Form& f : kParametricForms) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string Usage(const Form& f) {
  return "write " + std::string(f.name) + "(" + std::string(f.first) + "," +
         std::string(f.second) + "), e.g. " + std::string(f.example);
}

// Shortest plain decimal that reads back to exactly `value` (the parsers
// take no exponent, so never scientific notation).
std::string FormatNumber(double value) {
  std::array<char, 1200> buf{};  // any finite double in fixed notation
  const auto [end, error] = std::to_chars(buf.data(), buf.data() + buf.size(),
                                          value, std::chars_format::fixed);
  if (error != std::errc()) return "0";
  return std::string(buf.data(), end);
}

// units::FormatNs when it reads back exactly, else the exact value in ns.
std::string FormatDuration(double ns) {
  std::string pretty = units::FormatNs(ns);
  const std::optional<double> back = units::ParseDurationNs(pretty);
  if (back && *back == ns) return pretty;
  return FormatNumber(ns) + "ns";
}

// Digits with at most one dot, as units reads numbers: no sign, no
// exponent, so no "inf" or "nan".
std::optional<double> ParsePlainNumber(std::string_view text) {
  bool digits = false, dot = false;
  for (const char c : text) {
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  const double value = std::strtod(std::string(text).c_str(), nullptr);
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

// Why a parameter set is out of range, with how to write it; "" when fine.
std::string ParameterProblem(const Form& f, double first, double second) {
  const std::string a(f.first), b(f.second), usage = "; " + Usage(f);
  if (!std::isfinite(first) || !std::isfinite(second)) {
    return "parameters must be finite" + usage;
  }
  if (first < 0 || second < 0) return "parameters must not be negative" + usage;
  if (first > kMaxDelayNs) return a + " is more than one second" + usage;
  if (f.second_is_duration && second > kMaxDelayNs) {
    return b + " is more than one second" + usage;
  }
  const bool needs_positive_first =
      f.family == Family::kLogNormal || f.family == Family::kPareto;
  if (needs_positive_first && first == 0) return a + " must be above 0" + usage;
  if (f.family == Family::kUniform) {
    if (first == second) return "A equals B: use a constant, e.g. 10us";
    if (first > second) return "A must be below B" + usage;
  } else if (second == 0) {
    if (f.family == Family::kPareto) return "SHAPE must be above 0" + usage;
    return b + " is 0: use a constant, e.g. 10us";
  }
  return "";
}

std::optional<double> ParseParameter(const Form& f, bool second,
                                     std::string_view text, std::string* why) {
  const std::string_view name = second ? f.second : f.first;
  if (second && !f.second_is_duration) {
    const std::optional<double> number = ParsePlainNumber(text);
    if (!number) {
      Say(why, std::string(name) + ": expected a plain number such as 2.5; " +
                   Usage(f));
    }
    return number;
  }
  std::string unit_why;
  const std::optional<double> ns = units::ParseDurationNs(text, &unit_why);
  if (!ns) Say(why, std::string(name) + ": " + unit_why + "; " + Usage(f));
  return ns;
}

// "normal(10us, 2us)" once its name has been found at `form`.
std::optional<DelayDistribution> ParseParametric(const Form& form,
                                                 std::string_view args,
                                                 std::string* why) {
  const size_t comma = args.find(',');
  if (comma == std::string_view::npos ||
      args.find(',', comma + 1) != std::string_view::npos) {
    Say(why, std::string(form.name) + " takes two parameters; " + Usage(form));
    return std::nullopt;
  }
  std::string_view second_text = args.substr(comma + 1);
  while (second_text.starts_with(' ')) second_text.remove_prefix(1);
  const std::optional<double> first =
      ParseParameter(form, false, args.substr(0, comma), why);
  if (!first) return std::nullopt;
  const std::optional<double> second =
      ParseParameter(form, true, second_text, why);
  if (!second) return std::nullopt;
  return DelayDistribution::Parametric(form.family, *first, *second, why);
}

std::optional<DelayDistribution> ParseConstant(std::string_view text,
                                               std::string* why) {
  std::string unit_why;
  const std::optional<double> ns = units::ParseDurationNs(text, &unit_why);
  if (!ns) {
    if (const Form* form = FindForm(text)) {  // "normal" alone
      Say(why,
          std::string(form->name) + " needs its parameters; " + Usage(*form));
    } else if (text == "replay") {
      Say(why, "replay needs a file: write replay:FILE");
    } else {
      Say(why, unit_why + ", or a distribution such as normal(10us,2us)");
    }
    return std::nullopt;
  }
  if (*ns > kMaxDelayNs) {
    Say(why, "more than one second");
    return std::nullopt;
  }
  return DelayDistribution::Constant(*ns);
}

std::optional<DelayDistribution> ParseReplay(const std::string& path,
                                             std::string* why,
                                             const FileReader& read) {
  if (path.empty()) {
    Say(why,
        "replay: needs a file: write replay:FILE, FILE a report of "
        "verbsbench lat --json");
    return std::nullopt;
  }
  std::string read_why;
  const std::optional<std::string> text = read(path, &read_why);
  if (!text) {
    Say(why, read_why.empty() ? "cannot read " + path + std::string(kReplayHow)
                              : read_why);
    return std::nullopt;
  }
  return internal::ReplayFromReport(path, *text, why);
}

}  // namespace

DelayDistribution::DelayDistribution() = default;

DelayDistribution DelayDistribution::Constant(double ns) {
  DelayDistribution d;
  d.first_ = ns > 0 ? std::min(ns, kMaxDelayNs) : 0.0;
  return d;
}

std::optional<DelayDistribution> DelayDistribution::Parametric(
    Family family, double first, double second, std::string* why) {
  const Form* form = FindForm(family);
  if (form == nullptr) {
    Say(why, "not a family with two parameters; " + std::string(kForms));
    return std::nullopt;
  }
  const std::string problem = ParameterProblem(*form, first, second);
  if (!problem.empty()) {
    Say(why, problem);
    return std::nullopt;
  }
  DelayDistribution d;
  d.family_ = family;
  d.first_ = first + 0.0;  // -0 becomes 0, which Describe writes as "0"
  d.second_ = second + 0.0;
  return d;
}

std::optional<DelayDistribution> DelayDistribution::FromHistogram(
    std::vector<Bin> bins, std::string path, std::string note,
    std::string* why) {
  const std::string problem = internal::CheckBins(&bins);
  if (!problem.empty()) {
    Say(why, problem);
    return std::nullopt;
  }
  DelayDistribution d;
  d.family_ = Family::kReplay;
  d.path_ = std::move(path);
  d.note_ = std::move(note);
  d.bins_ = std::move(bins);
  double running = 0;
  for (const Bin& b : d.bins_) d.cumulative_.push_back(running += b.count);
  return d;
}

double DelayDistribution::Mean() const {
  switch (family_) {
    case Family::kConstant:
      return first_;
    case Family::kNormal:
      return internal::NormalClampedMean(first_, second_, kMaxDelayNs);
    case Family::kLogNormal:
      return internal::LogNormalClampedMean(first_, second_, kMaxDelayNs);
    case Family::kUniform:
      return 0.5 * (first_ + second_);
    case Family::kPareto:
      return internal::ParetoClampedMean(first_, second_, kMaxDelayNs);
    case Family::kReplay:
      break;
  }
  // Shares rather than counts: a count times a delay may overflow.
  double mean = 0;
  for (const Bin& b : bins_) {
    mean += b.count / cumulative_.back() * (0.5 * (b.lo_ns + b.hi_ns));
  }
  return std::min(mean, bins_.back().hi_ns);
}

double DelayDistribution::RawCdf(double ns) const {
  switch (family_) {
    case Family::kNormal:
      return NormalCdf((ns - first_) / second_);
    case Family::kLogNormal:
      return ns > 0 ? NormalCdf(std::log(ns / first_) / second_) : 0.0;
    case Family::kUniform:
      return std::clamp((ns - first_) / (second_ - first_), 0.0, 1.0);
    case Family::kPareto:
      return ns > first_ ? -std::expm1(second_ * std::log(first_ / ns)) : 0.0;
    case Family::kReplay:
      return ReplayCdf(ns);
    case Family::kConstant:
      break;
  }
  return ns >= first_ ? 1.0 : 0.0;
}

double DelayDistribution::ReplayCdf(double ns) const {
  const auto after =
      std::upper_bound(bins_.begin(), bins_.end(), ns,
                       [](double x, const Bin& b) { return x < b.lo_ns; });
  if (after == bins_.begin()) return 0;
  const size_t i = static_cast<size_t>(after - bins_.begin()) - 1;
  const Bin& b = bins_[i];
  const double before = i == 0 ? 0.0 : cumulative_[i - 1];
  const double inside = ns >= b.hi_ns
                            ? b.count
                            : b.count * ((ns - b.lo_ns) / (b.hi_ns - b.lo_ns));
  return (before + inside) / cumulative_.back();
}

double DelayDistribution::Cdf(double ns) const {
  if (family_ == Family::kConstant) return ns >= first_ ? 1.0 : 0.0;
  if (ns < 0) return 0;
  if (ns >= kMaxDelayNs) return 1;
  return RawCdf(ns);
}

double DelayDistribution::CdfBelow(double ns) const {
  if (family_ == Family::kConstant) return ns > first_ ? 1.0 : 0.0;
  if (ns <= 0) return 0;  // the atom at 0 of a clamped normal
  if (ns > kMaxDelayNs) return 1;
  return RawCdf(ns);  // continuous below 1 s: the atom there is excluded
}

double DelayDistribution::RawQuantile(double u) const {
  switch (family_) {
    case Family::kNormal:
      return first_ + second_ * NormalQuantile(u);
    case Family::kLogNormal:
      return first_ * std::exp(second_ * NormalQuantile(u));
    case Family::kUniform:
      return first_ + u * (second_ - first_);
    case Family::kPareto:
      return first_ * std::exp(-std::log1p(-u) / second_);
    case Family::kReplay:
      return ReplayQuantile(u);
    case Family::kConstant:
      break;
  }
  return first_;
}

double DelayDistribution::ReplayQuantile(double u) const {
  const double target = u * cumulative_.back();
  const auto at =
      std::lower_bound(cumulative_.begin(), cumulative_.end(), target);
  const size_t i =
      std::min(static_cast<size_t>(at - cumulative_.begin()), bins_.size() - 1);
  const Bin& b = bins_[i];
  const double before = i == 0 ? 0.0 : cumulative_[i - 1];
  const double share = std::clamp((target - before) / b.count, 0.0, 1.0);
  return b.lo_ns + share * (b.hi_ns - b.lo_ns);
}

double DelayDistribution::Lowest() const {
  switch (family_) {
    case Family::kNormal:
    case Family::kLogNormal:
      return 0;
    case Family::kReplay:
      return bins_.front().lo_ns;
    default:
      return first_;  // constant, uniform's A, pareto's SCALE
  }
}

double DelayDistribution::Highest() const {
  switch (family_) {
    case Family::kConstant:
      return first_;
    case Family::kUniform:
      return second_;
    case Family::kReplay:
      return bins_.back().hi_ns;
    default:
      return kMaxDelayNs;
  }
}

double DelayDistribution::Quantile(double u) const {
  if (!(u > 0)) return Lowest();
  if (!(u < 1)) return Highest();
  return std::clamp(RawQuantile(u), 0.0, kMaxDelayNs);
}

double DelayDistribution::Sample(uint64_t random_bits) const {
  return Quantile(UnitFromBits(random_bits));
}

std::string DelayDistribution::Describe() const {
  if (family_ == Family::kConstant) return FormatDuration(first_);
  if (family_ == Family::kReplay) {
    return std::string(kReplayPrefix) + path_ + " (" + note_ + ", " +
           FormatNumber(cumulative_.back()) + " samples, mean " +
           units::FormatNs(Mean()) + ")";
  }
  const Form& form = *FindForm(family_);
  return std::string(form.name) + "(" + FormatDuration(first_) + "," +
         (form.second_is_duration ? FormatDuration(second_)
                                  : FormatNumber(second_)) +
         ")";
}

std::optional<DelayDistribution> ParseDelayDistribution(
    std::string_view text, std::string* why, const FileReader& read) {
  if (text.starts_with(kReplayPrefix)) {
    return ParseReplay(std::string(text.substr(kReplayPrefix.size())), why,
                       read);
  }
  const size_t open = text.find('(');
  if (open == std::string_view::npos) return ParseConstant(text, why);
  const std::string_view name = text.substr(0, open);
  const Form* form = FindForm(name);
  if (form == nullptr) {
    Say(why, "unknown distribution '" + std::string(name) + "'; " +
                 std::string(kForms));
    return std::nullopt;
  }
  if (!text.ends_with(')')) {
    Say(why, "expected ')' at the end; " + Usage(*form));
    return std::nullopt;
  }
  return ParseParametric(*form, text.substr(open + 1, text.size() - open - 2),
                         why);
}

uint64_t RandomBits(uint64_t seed, uint64_t stream, uint64_t index) {
  constexpr uint64_t kGolden = 0x9e3779b97f4a7c15;  // splitmix64's increment
  const auto mix = [](uint64_t z) {                 // splitmix64's finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  };
  // Round 1 keys the stream; mix is a bijection, so distinct streams of one
  // seed get distinct keys. Round 2 is splitmix64 itself: element `index` of
  // the sequence that starts at the key.
  const uint64_t key = mix(mix(seed + kGolden) ^ stream);
  return mix(key + (index + 1) * kGolden);
}

double UnitFromBits(uint64_t bits) {
  return (static_cast<double>(bits >> 12) + 0.5) * 0x1p-52;
}

double KsDistance(std::vector<double> samples,
                  const DelayDistribution& target) {
  if (samples.empty()) return 1;
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  double worst = 0;
  // Per run of equal values [i, j): F_n jumps from i/n to j/n where the
  // target goes from CdfBelow to Cdf; between runs both are monotone, so
  // the ends of each run bound the gap.
  for (size_t i = 0, j = 0; i < samples.size(); i = j) {
    while (j < samples.size() && samples[j] == samples[i]) ++j;
    const double x = samples[i];
    worst =
        std::max({worst, std::abs(static_cast<double>(j) / n - target.Cdf(x)),
                  std::abs(target.CdfBelow(x) - static_cast<double>(i) / n)});
  }
  return worst;
}

}  // namespace verbsemu::emulate
