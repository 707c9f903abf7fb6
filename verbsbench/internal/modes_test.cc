// The modes on synthetic measurements: which points they measure, with
// which arguments, and the JSON the typed result makes of them.
#include "verbsbench/internal/modes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "verbsbench/mode.h"
#include "verbsbench/report.h"
#include "verbsbench/result.h"

namespace verbsbench::internal {
namespace {

using nlohmann::json;

// Every call is logged; each returns `n` samples of a value that encodes
// the call (so the test can tell which recorder went where).
class FakeMeasurements : public Measurements {
 public:
  bool Inline(const Message& m) const override {
    return m.inl && m.op != Op::kRead;
  }
  Recorder RoundTrip1n(int p, const Message& m, uint64_t iters, uint64_t,
                       double divisor) override {
    log.push_back("1n p=" + std::to_string(p) + " " + Name(m.op) +
                  " n=" + std::to_string(iters));
    return Samples(iters, 100.0 * p / divisor);
  }
  bool InlineUd(const Message& m) const override { return m.inl; }
  Recorder RoundTrip1nList(int p, const Message& m, uint64_t iters,
                           uint64_t) override {
    log.push_back("1n list p=" + std::to_string(p) + " " + Name(m.op));
    return Samples(iters, 80.0 * p);
  }
  Recorder RoundTripN1(int p, const Message&, uint64_t iters,
                       uint64_t) override {
    log.push_back("n1 p=" + std::to_string(p));
    return Samples(iters, 300.0 * p);
  }
  Recorder SendOverhead(int p, const Message&, bool list, uint64_t iters,
                        uint64_t) override {
    log.push_back("os p=" + std::to_string(p) + (list ? " list" : ""));
    return Samples(iters, list ? 5.0 : 10.0 + p);
  }
  Recorder RecvOverhead(int p, bool list, uint64_t iters, uint64_t) override {
    log.push_back("or p=" + std::to_string(p) + (list ? " list" : ""));
    return Samples(iters, 7.0);
  }
  // LogGP by formulas.h's model: o_s 500, o_r 200, L 1000, g 800 ns and
  // G 0.25 ns/B.
  static constexpr double kOs = 500, kOr = 200, kL = 1000, kPerByte = 0.25;
  static constexpr double kGap = 800;
  double gap = kGap;  // g, settable: a link narrower than its latency
  Recorder Prtt(const Message& m, int n, double delay, uint64_t iters,
                uint64_t) override {
    log.push_back("prtt n=" + std::to_string(n) +
                  (delay > 0 ? " delayed" : "") +
                  " s=" + std::to_string(m.size));
    const double bytes = static_cast<double>(m.size) - 1;
    const double rtt = 2 * (kOs + kL + bytes * kPerByte + kOr);
    const double each = delay > 0
                            ? std::max(kOs + delay, gap + bytes * kPerByte)
                            : std::max(kOs, gap + bytes * kPerByte);
    return Samples(iters, rtt + (n - 1) * each);
  }
  Recorder TrainRecvOverhead(const Message&, int n, double settle,
                             uint64_t iters, uint64_t) override {
    log.push_back("o_r n=" + std::to_string(n) +
                  (settle > 0 ? " settled" : ""));
    return Samples(iters, kOr);
  }
  StreamTimes Stream(const Message& m, uint64_t count, bool bidir,
                     Recorder& rec) override {
    log.push_back("stream " + std::string(Name(m.op)) +
                  " n=" + std::to_string(count) + (bidir ? " bidir" : ""));
    rec.Add(2.0);
    return {1e6 * static_cast<double>(count) / 1000, bidir ? 5.0 : 0.0};
  }
  std::vector<std::string> log;

 private:
  static Recorder Samples(uint64_t n, double value) {
    Recorder r(1000, 0);
    for (uint64_t i = 0; i < n; ++i) r.Add(value);
    return r;
  }
};

// Normalizes `o`, runs its mode over `meas` and returns the typed result.
Result RunMode(Options o, FakeMeasurements& meas) {
  Result result;
  result.options = Normalize(o);
  std::ostringstream progress;
  RowOf(result.options.mode).run(meas, result.options, progress, result);
  return result;
}

TEST(RunLat, EveryOpInlineAndSizeOnceAndReadWithoutInline) {
  Options o;
  o.mode = Mode::kLat;
  o.ops = {Op::kSend, Op::kRead};
  o.inline_modes = {true, false};
  o.sizes = {8, 16};
  o.iters = 30;
  FakeMeasurements meas;
  const Result result = RunMode(o, meas);
  const std::vector<LatPoint>& points = result.lat;
  // send: 2 inline modes x 2 sizes; read: inline skipped, 2 sizes.
  ASSERT_EQ(points.size(), 6u);
  EXPECT_TRUE(points[0].inline_used);
  EXPECT_TRUE(points[0].inline_requested);
  EXPECT_EQ(points[4].op, Op::kRead);
  EXPECT_FALSE(points[4].inline_requested);
  EXPECT_EQ(points[0].iterations, 30u);
  // rtt/2 for send, the whole rtt for read.
  EXPECT_DOUBLE_EQ(points[0].recorder.histogram().min(), 50.0);
  EXPECT_DOUBLE_EQ(points[4].recorder.histogram().min(), 100.0);
  const json j = ToJson(result);
  EXPECT_EQ(j["mode"], "lat");
  ASSERT_EQ(j["results"].size(), 6u);
  EXPECT_EQ(j["results"][0]["metric"], "rtt/2");
  EXPECT_EQ(j["results"][4]["metric"], "rtt");
  EXPECT_EQ(j["results"][4]["op"], "read");
  EXPECT_EQ(j["results"][1]["size"], 16);
  EXPECT_EQ(j["results"][0]["stats"]["count"], 30);
  EXPECT_FALSE(j["results"][0].contains("raw_ns"));
  EXPECT_EQ(j["params"]["ops"], json({"send", "read"}));
}

TEST(RunLat, DurationRunsAPilotFirst) {
  Options o;
  o.duration_s = 1e-3;  // 1 ms at 50 ns per round trip: 20000 iterations
  FakeMeasurements meas;
  const std::vector<LatPoint> points = RunMode(o, meas).lat;
  ASSERT_EQ(meas.log.size(), 2u);
  EXPECT_EQ(meas.log[0], "1n p=1 send n=100");
  EXPECT_EQ(points.at(0).iterations, 20000u);
}

TEST(RunBw, ThroughputFromTheStreamTime) {
  Options o;
  o.mode = Mode::kBw;
  o.ops = {Op::kSend, Op::kRead};
  o.sizes = {1024};
  o.iters = 1000;
  o.warmup = 10;
  o.bidirectional = true;
  FakeMeasurements meas;
  const Result result = RunMode(o, meas);
  // A warm-up stream, then the measured one; read is never bidirectional.
  EXPECT_EQ(meas.log, (std::vector<std::string>{
                          "stream send n=10 bidir", "stream send n=1000 bidir",
                          "stream read n=10", "stream read n=1000"}));
  const json j = ToJson(result);
  ASSERT_EQ(j["results"].size(), 2u);
  const json& send = j["results"][0];
  EXPECT_EQ(send["bidirectional"], true);
  EXPECT_DOUBLE_EQ(send["elapsed_ns"].get<double>(), 1e6);
  EXPECT_DOUBLE_EQ(send["peer_elapsed_ns"].get<double>(), 5.0);
  // 2 x 1000 x 1024 bytes in 1 ms.
  EXPECT_DOUBLE_EQ(send["bw_Gbps"].get<double>(), 2 * 1000 * 1024 * 8 / 1e6);
  EXPECT_DOUBLE_EQ(send["msg_rate_Mpps"].get<double>(), 2.0);
  EXPECT_FALSE(j["results"][1].contains("peer_elapsed_ns"));
  EXPECT_EQ(j["results"][1]["bidirectional"], false);
}

TEST(RunLop, CurvesAndDerivedLatencies) {
  Options o;
  o.mode = Mode::kLop;
  o.ops = {Op::kSend};
  o.inline_modes = {false};
  o.peers = 2;
  o.iters = 10;
  FakeMeasurements meas;
  const Result result = RunMode(o, meas);
  std::vector<std::string> names;
  for (const LopCurve& c : result.lop) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "round_1n_send_normal", "round_1n_send_normal_list",
                       "round_n1_send_normal", "os_send_single", "os_send_list",
                       "or_recv_single", "or_recv_list"}));
  for (const LopCurve& c : result.lop) EXPECT_EQ(c.points.size(), 2u);
  const json j = ToJson(result);
  const json& curves = j["lop"]["curves"];
  // + t_rtt and L for 1:n, the list-posted 1:n and n:1
  ASSERT_EQ(curves.size(), 7u + 6u);
  EXPECT_EQ(curves[1]["kind"], "round");
  EXPECT_EQ(curves[1]["list"], true);
  EXPECT_EQ(curves[1]["pattern"], "1:n");
  EXPECT_EQ(curves[7]["name"], "rtt_1n_send_normal");
  EXPECT_DOUBLE_EQ(curves[7]["points"][1]["min_ns"].get<double>(), 100.0);
  EXPECT_EQ(curves[8]["name"], "rtt_1n_send_normal_list");
  EXPECT_DOUBLE_EQ(curves[8]["points"][1]["min_ns"].get<double>(), 80.0);
  EXPECT_EQ(curves[10]["name"], "L_1n_send_normal");
  // L(2) = t_rtt(2)/2 - (o_s(2) + o_s(1)) = (200/2)/2 - (12 + 11)
  EXPECT_DOUBLE_EQ(curves[10]["points"][1]["min_ns"].get<double>(),
                   50.0 - 23.0);
  // L_list(2) = t_rtt_list(2)/2 - (2 o_s_list(2) + o_s(1))
  //           = (160/2)/2 - (2 * 5 + 11)
  EXPECT_EQ(curves[11]["name"], "Llist_1n_send_normal");
  EXPECT_EQ(curves[11]["list"], true);
  EXPECT_DOUBLE_EQ(curves[11]["points"][1]["min_ns"].get<double>(),
                   40.0 - 21.0);
  EXPECT_EQ(curves[0]["size"], 8);
  EXPECT_EQ(curves[3]["side"], "send");
  EXPECT_EQ(curves[5]["op"], "recv");
  EXPECT_FALSE(curves[5].contains("size"));
  EXPECT_TRUE(j["lop"].contains("definitions"));
}

// The list-posted round runs for send in each inline mode, never for write
// (UD QPs do not do RDMA write).
TEST(RunLop, ListRoundForSendInBothInlineModesOnly) {
  Options o;
  o.mode = Mode::kLop;
  o.ops = {Op::kSend, Op::kWrite};
  o.inline_modes = {true, false};
  o.peers = 1;
  o.iters = 10;
  FakeMeasurements meas;
  const Result result = RunMode(o, meas);
  std::vector<std::string> lists;
  for (const LopCurve& c : result.lop) {
    if (c.kind == lop::Kind::kRound && c.list) lists.push_back(c.name);
  }
  EXPECT_EQ(lists, (std::vector<std::string>{"round_1n_send_inline_list",
                                             "round_1n_send_normal_list"}));
  EXPECT_EQ(std::count(meas.log.begin(), meas.log.end(), "1n list p=1 send"),
            2);
  EXPECT_TRUE(result.lop.at(1).is_inline);
  const json curves = ToJson(result)["lop"]["curves"];
  std::vector<std::string> rounds;  // measured and derived, not o_s lists
  for (const json& c : curves) {
    if (c["list"] == true && c["kind"] != "overhead")
      rounds.push_back(c["name"]);
  }
  EXPECT_EQ(rounds,
            (std::vector<std::string>{
                "round_1n_send_inline_list", "round_1n_send_normal_list",
                "rtt_1n_send_inline_list", "rtt_1n_send_normal_list",
                "Llist_1n_send_inline", "Llist_1n_send_normal"}));
}

// --mode-resolution reaches every stats object the result writes.
// Per size: the three PRTTs, then o_r; d is the median PRTT(1,0,s), and the
// JSON's derived values give back the model's o_s, o_r and gap.
TEST(RunLoggp, ThreeTrainsAndORPerSizeDeriveTheModel) {
  Options o;
  o.mode = Mode::kLoggp;
  o.sizes = {8, 4096};
  o.iters = 20;
  o.loggp_n = 8;
  FakeMeasurements meas;
  const Result result = RunMode(o, meas);
  EXPECT_EQ(meas.log,
            (std::vector<std::string>{
                "prtt n=1 s=8", "prtt n=8 s=8", "prtt n=8 delayed s=8",
                "o_r n=8 settled", "prtt n=1 s=4096", "prtt n=8 s=4096",
                "prtt n=8 delayed s=4096", "o_r n=8 settled"}));
  ASSERT_EQ(result.loggp.size(), 2u);
  const LoggpPoint& big = result.loggp[1];
  EXPECT_DOUBLE_EQ(big.delay_ns, big.prtt_1_0.histogram().Quantile(0.5));
  const json j = ToJson(result);
  EXPECT_EQ(j["mode"], "loggp");
  EXPECT_EQ(j["loggp"]["n"], 8);
  const json& d = j["loggp"]["points"][1]["derived"]["median_ns"];
  const double gap = FakeMeasurements::kGap + 4095 * FakeMeasurements::kPerByte;
  EXPECT_NEAR(d["gap_ns"].get<double>(), gap, gap * 0.01);
  EXPECT_NEAR(d["o_s_ns"].get<double>(), FakeMeasurements::kOs, 5);
  EXPECT_NEAR(d["o_r_ns"].get<double>(), FakeMeasurements::kOr, 2);
  EXPECT_FALSE(d["sender_bound"].get<bool>());
  EXPECT_TRUE(d["delay_covers_gap"].get<bool>());
  // At 8 B the posts pace the train (o_s 500 < g 800 + 7 G: not bound).
  const json& small = j["loggp"]["points"][0]["derived"]["median_ns"];
  EXPECT_NEAR(small["gap_ns"].get<double>(), 801.75, 8);
}

// Where the gap outlasts a round trip, d = PRTT(1,0,s) would leave the
// delayed train paced by the gap: d is twice the gap instead.
TEST(RunLoggp, DelayCoversAGapLongerThanTheRoundTrip) {
  Options o;
  o.mode = Mode::kLoggp;
  o.sizes = {64};
  o.iters = 20;
  FakeMeasurements meas;
  meas.gap = 50000;
  const Result result = RunMode(o, meas);
  const LoggpPoint& pt = result.loggp.at(0);
  EXPECT_GT(pt.delay_ns, 2 * 0.99 * (50000 + 63 * FakeMeasurements::kPerByte));
  const json d = ToJson(result)["loggp"]["points"][0]["derived"]["median_ns"];
  EXPECT_TRUE(d["delay_covers_gap"].get<bool>());
  EXPECT_NEAR(d["o_s_ns"].get<double>(), FakeMeasurements::kOs, 50);
}

TEST(Result, ModeResolutionReachesEveryDistribution) {
  for (Mode mode : {Mode::kLat, Mode::kBw, Mode::kLop}) {
    Options o;
    o.mode = mode;
    o.iters = 10;
    o.mode_resolution = 0.03;
    FakeMeasurements meas;
    const json j = ToJson(RunMode(o, meas));
    const json& stats = mode == Mode::kLop
                            ? j["lop"]["curves"][0]["points"][0]["stats"]
                            : j["results"][0]["stats"];
    EXPECT_EQ(stats["mode_resolution"], 0.03) << Name(mode);
    EXPECT_EQ(j["params"]["mode_resolution"], 0.03) << Name(mode);
  }
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Every row of the modes' table, with its defaults, runs over the fakes and
// writes a run every report writer prints: a new row is covered here.
TEST(ModeTable, EveryRowRunsAndEveryWriterPrintsIt) {
  for (const ModeRow& row : kModes) {
    Options o;
    o.mode = row.mode;
    o.iters = 10;
    FakeMeasurements meas;
    const Result result = RunMode(o, meas);
    EXPECT_FALSE(meas.log.empty()) << Name(row.mode);
    const json j = ToJson(result);
    EXPECT_EQ(j["mode"], Name(row.mode));
    std::ostringstream table, csv, histograms, raw;
    PrintTable(j, table);
    WriteCsv(j, csv);
    WriteHistograms(j, histograms);
    WriteRaw(j, raw);
    // Beyond what every run prints (the header, the timer's block): the
    // mode's lines.
    EXPECT_GT(Lines(table.str()), 3u) << Name(row.mode) << ":\n" << table.str();
    EXPECT_GT(Lines(csv.str()), 1u) << Name(row.mode);
    EXPECT_NE(histograms.str().find("cycle minimums"), std::string::npos)
        << Name(row.mode);
    // The fakes keep no raw samples: the header alone.
    EXPECT_EQ(raw.str(), "# label sample_ns\n") << Name(row.mode);
  }
}

}  // namespace
}  // namespace verbsbench::internal
