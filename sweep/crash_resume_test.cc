// A sweep killed with SIGKILL at random moments and resumed each time
// loses no run and runs none twice: it ends with the very runs.csv an
// uninterrupted sweep writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "sweep/cli.h"
#include "sweep/cli_test_util.h"
#include "sweep/runs_csv.h"

namespace verbsemu::sweep {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

class CrashResumeTest : public SweepCliTest {
 protected:
  void SetUp() override {
    SweepCliTest::SetUp();
    // A fast command with a metric that depends on its point only.
    fake_.tweak = [](int, double us, Json*, std::string* output) {
      *output = "value t=" + std::to_string(50 + 2.5 * us) + "\n";
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
  }
  std::vector<std::string> New(const fs::path& dir) {
    std::vector<std::string> a = Args();
    a[3] = "8";  // 40 runs
    a[a.size() - 3] = dir.string();
    return a;
  }
  // Complete rows in DIR/runs.csv, the header left out.
  size_t Rows() const {
    const std::string text = Slurp(dir_ / "runs.csv");
    const size_t lines =
        static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    return lines > 0 ? lines - 1 : 0;
  }
  // The sweep in a child, SIGKILLed `jitter` after runs.csv holds `rows`
  // rows (or after 30 s) unless it ended first; true when it ended itself.
  bool RunChild(const std::vector<std::string>& args, size_t rows,
                std::chrono::microseconds jitter) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      _exit(SweepMain(args, ctx_));
    }
    using Clock = std::chrono::steady_clock;
    auto deadline = Clock::now() + std::chrono::seconds(30);
    bool armed = false;
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (!armed && Rows() >= rows) {
        armed = true;
        deadline = std::min(deadline, Clock::now() + jitter);
      }
      if (Clock::now() >= deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return WIFEXITED(status);
  }
};

TEST_F(CrashResumeTest, KilledTwentyTimesItLosesAndRepeatsNothing) {
  const fs::path reference = dir_.string() + "-reference";
  fs::remove_all(reference);
  const fs::path dir = dir_;
  dir_ = reference;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RunChild(New(reference), 1000, std::chrono::seconds(30)));
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  dir_ = dir;
  const std::string expected = Slurp(reference / "runs.csv");
  ASSERT_EQ(Lines(expected).size(), 41u);  // the header and 40 runs

  std::mt19937 rng(::testing::UnitTest::GetInstance()->random_seed());
  size_t recorded = 0;
  int killed = 0, killed_with_runs_to_go = 0;
  for (int kill = 0; kill < 20; ++kill) {
    const bool planned = fs::exists(dir_ / "plan.json");
    const std::vector<std::string> args =
        planned ? std::vector<std::string>{"--resume", dir_.string()}
                : New(dir_);
    // A moment within the next few runs: before, during or after a run,
    // in the middle of writing a row; once all ran, in writing the outputs.
    const size_t rows =
        recorded + std::uniform_int_distribution<size_t>(0, 3)(rng);
    const auto jitter = std::chrono::microseconds(
        std::uniform_int_distribution<long>(0, took.count() / 40)(rng));
    if (!RunChild(args, rows, jitter)) {
      ++killed;
      killed_with_runs_to_go += recorded < 40;
    }
    std::string why;
    const auto runs = ReadRunsCsv(Slurp(dir_ / "runs.csv"), &why);
    if (!fs::exists(dir_ / "runs.csv")) continue;
    ASSERT_TRUE(runs) << why << " after kill " << kill;
    ASSERT_GE(runs->size(), recorded) << "a run was lost at kill " << kill;
    for (size_t i = 0; i < runs->size(); ++i) {
      ASSERT_EQ((*runs)[i].run, static_cast<int>(i)) << "kill " << kill;
    }
    recorded = runs->size();
  }
  // Kills that found the sweep still running, and midway: the test tested.
  std::printf(
      "%d of 20 kills landed, %d midway; %zu of 40 runs recorded; "
      "a whole sweep takes %ld us\n",
      killed, killed_with_runs_to_go, recorded,
      static_cast<long>(took.count()));
  EXPECT_GT(killed_with_runs_to_go, 0);
  ASSERT_TRUE(fs::exists(dir_ / "plan.json"));
  ASSERT_TRUE(
      RunChild({"--resume", dir_.string()}, 1000, std::chrono::seconds(30)));
  EXPECT_EQ(Lines(Slurp(dir_ / "runs.csv")), Lines(expected));
}

}  // namespace
}  // namespace verbsemu::sweep
