// What `verbsemu sweep` promises its data when things go wrong: one sweep
// at a time in a directory, signals that stop it keep what ran, a full
// disk stops it with the rows before intact, any bytes a run prints.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include "sweep/cli.h"
#include "sweep/cli_test_util.h"
#include "sweep/runs_csv.h"
#include "sweep/session.h"

namespace verbsemu::sweep {
namespace {

std::vector<RunRecord> Runs(const fs::path& csv) {
  std::string why;
  const auto runs = ReadRunsCsv(Slurp(csv), &why);
  EXPECT_TRUE(runs) << why;
  return runs ? *runs : std::vector<RunRecord>{};
}

bool OneLine(const std::string& err) {
  return err.starts_with("verbsemu sweep: ") &&
         err.find('\n') == err.size() - 1;
}

TEST_F(SweepCliTest, TwoResumesAtOnceAreRefusedByTheSecond) {
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 8) std::raise(SIGINT);
  };
  ASSERT_EQ(Sweep(Args()), 130) << stderr_;
  // A second resume starts while the first is running its 3rd run.
  int second = -1;
  fake_.tweak = [&](int call, double, Json*, std::string*) {
    if (call == 11) second = SweepMain({"--resume", dir_.string()}, ctx_);
  };
  ASSERT_EQ(Sweep({"--resume", dir_.string()}), 0) << stderr_;
  EXPECT_EQ(second, 2);
  EXPECT_NE(stderr_.find("another sweep is running in " + dir_.string()),
            std::string::npos)
      << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 25u);  // each run once
  EXPECT_EQ(fake_.calls, 1 + 7 + 1 + 19);
}

TEST_F(SweepCliTest, ANewSweepIntoALockedDirectoryIsRefused) {
  fs::create_directories(dir_);
  DirLock other;
  std::string why;
  ASSERT_TRUE(other.Take(dir_.string(), &why)) << why;
  EXPECT_EQ(Sweep(Args()), 2);
  EXPECT_TRUE(OneLine(stderr_)) << stderr_;
  EXPECT_NE(stderr_.find("another sweep is running"), std::string::npos);
  EXPECT_EQ(fake_.calls, 0);
}

// A batch system's SIGTERM (or a closed terminal's SIGHUP) to the sweep.
TEST_F(SweepCliTest, SigtermStopsTheSweepKeepingWhatRan) {
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 8) std::raise(SIGTERM);
  };
  ASSERT_EQ(Sweep(Args()), 128 + SIGTERM) << stderr_;
  EXPECT_NE(stderr_.find("stopped by SIGTERM after 6 of 25 runs"),
            std::string::npos)
      << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 6u);
  fake_.tweak = nullptr;
  ASSERT_EQ(Sweep({"--resume", dir_.string()}), 0) << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 25u);
}

TEST_F(SweepCliTest, SighupStopsTheSweepToo) {
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 3) std::raise(SIGHUP);
  };
  ASSERT_EQ(Sweep(Args()), 128 + SIGHUP) << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 1u);
}

// Runs that fail printing bytes that are not UTF-8, and a last line of
// two-byte characters longer than the 200 bytes a reason keeps.
TEST_F(SweepCliTest, RunsPrintingInvalidUtf8AreRecorded) {
  std::string long_line;
  for (int i = 0; i < 150; ++i) long_line += "\xc3\xa9";  // é
  fake_.tweak = [&](int call, double, Json*, std::string* output) {
    if (call == 4) *output += "bad \xff\xfe bytes \xc3\n";
    if (call == 5) *output += long_line + "\n";
  };
  fake_.exit_code = [](int call) { return call == 4 || call == 5 ? 1 : 0; };
  ASSERT_EQ(Sweep(Args()), 1) << stderr_;
  const Json result = Result();  // sweep.json was written, and parses
  ASSERT_EQ(result["runs"].size(), 25u);
  const std::string bad = result["runs"][2]["reason"];
  EXPECT_NE(bad.find("bad \xef\xbf\xbd"), std::string::npos) << bad;  // U+FFFD
  const std::string cut = result["runs"][3]["reason"];
  EXPECT_NE(cut.find(long_line.substr(0, 200) + "..."), std::string::npos)
      << cut;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 25u);
}

// Whatever goes wrong inside, the sweep ends as a tool does: one line, and
// the runs recorded before stay.
TEST_F(SweepCliTest, AnExceptionIsOneLineAndExitOne) {
  struct Throwing : FakeCommand {
    RunOutcome Run(const RunRequest& r) override {
      if (calls == 5) throw std::runtime_error("out of something");
      return FakeCommand::Run(r);
    }
  } throwing;
  ctx_.executor = &throwing;
  EXPECT_EQ(Sweep(Args()), 1);
  const std::string last =
      stderr_.substr(stderr_.rfind('\n', stderr_.size() - 2) + 1);
  EXPECT_EQ(last, "verbsemu sweep: internal error: out of something\n")
      << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 4u);
}

// plan.json must give --resume the very command: bytes JSON cannot carry
// are refused before anything runs.
TEST_F(SweepCliTest, ACommandThatIsNotUtf8IsRefused) {
  std::vector<std::string> a = Args();
  a.back() = "/bin/true";
  a.push_back("arg-\xff");
  EXPECT_EQ(Sweep(a), 2);
  EXPECT_TRUE(OneLine(stderr_)) << stderr_;
  EXPECT_NE(stderr_.find("UTF-8"), std::string::npos) << stderr_;
  EXPECT_EQ(fake_.calls, 0);
}

// A device list with a typo, or a program that reaches libibverbs where
// the shim cannot see it: no run would be emulated.
TEST_F(SweepCliTest, APilotWithNoShimReportStopsTheSweep) {
  fake_.tweak = [](int, double, Json* reports, std::string*) {
    reports->clear();
  };
  EXPECT_EQ(Sweep(Args()), 2);
  EXPECT_TRUE(OneLine(stderr_)) << stderr_;
  EXPECT_NE(stderr_.find("--allow-unemulated"), std::string::npos) << stderr_;
  EXPECT_EQ(fake_.calls, 1);
  EXPECT_FALSE(fs::exists(dir_ / "runs.csv"));
}

// Stopped, then resumed where the command no longer works (a module not
// loaded, a device gone): nothing more is recorded as a failure.
TEST_F(SweepCliTest, ResumeRunsThePilotAgain) {
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 8) std::raise(SIGINT);
  };
  ASSERT_EQ(Sweep(Args()), 130) << stderr_;
  fake_.tweak = [](int, double, Json*, std::string* output) {
    *output = "error while loading shared libraries\n";
  };
  EXPECT_EQ(Sweep({"--resume", dir_.string()}), 2);
  EXPECT_TRUE(OneLine(stderr_)) << stderr_;
  EXPECT_NE(stderr_.find("the pilot run"), std::string::npos) << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 6u);
  EXPECT_EQ(fake_.calls, 8 + 1);
}

TEST_F(SweepCliTest, AnotherShimBuildIsRefusedWithoutForce) {
  const fs::path lib = dir_.string() + "-libverbsemu.so";
  std::ofstream(lib) << "build 1";
  ctx_.lib_path = lib.string();
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 8) std::raise(SIGINT);
  };
  ASSERT_EQ(Sweep(Args()), 130) << stderr_;
  const Json plan = Json::parse(Slurp(dir_ / "plan.json"));
  EXPECT_EQ(plan["shim"]["path"], lib.string());
  EXPECT_FALSE(plan["shim"]["version"].get<std::string>().empty());
  std::ofstream(lib) << "build 2";
  fake_.tweak = nullptr;
  EXPECT_EQ(Sweep({"--resume", dir_.string()}), 2);
  EXPECT_TRUE(OneLine(stderr_)) << stderr_;
  EXPECT_NE(stderr_.find("would mix two shims"), std::string::npos) << stderr_;
  EXPECT_EQ(fake_.calls, 8);
  EXPECT_EQ(Sweep({"--resume", dir_.string(), "--force"}), 0) << stderr_;
  EXPECT_EQ(Runs(dir_ / "runs.csv").size(), 25u);
}

TEST_F(SweepCliTest, RetryFailedRunsTheFailedRunsAgain) {
  fake_.exit_code = [](int call) { return call == 3 || call == 4 ? 1 : 0; };
  ASSERT_EQ(Sweep(Args()), 1) << stderr_;
  std::vector<RunRecord> runs = Runs(dir_ / "runs.csv");
  ASSERT_EQ(runs.size(), 25u);
  EXPECT_FALSE(runs[1].metric);
  EXPECT_FALSE(runs[2].metric);
  fake_.exit_code = nullptr;
  EXPECT_EQ(Sweep({"--resume", dir_.string(), "--retry-failed"}), 0) << stderr_;
  runs = Runs(dir_ / "runs.csv");
  ASSERT_EQ(runs.size(), 25u);
  for (const RunRecord& r : runs) EXPECT_TRUE(r.valid) << RunsCsvRow(r);
  EXPECT_EQ(fake_.calls, 26 + 1 + 2);  // the pilot and the two failed
}

// An edited plan.json that renumbers the grid's points.
TEST_F(SweepCliTest, RowsAtOtherSettingsThanTheirPointAreRefused) {
  fake_.tweak = [](int call, double, Json*, std::string*) {
    if (call == 8) std::raise(SIGINT);
  };
  ASSERT_EQ(Sweep(Args()), 130) << stderr_;
  Json plan = Json::parse(Slurp(dir_ / "plan.json"));
  plan["latencies"] = "0,2us,1us,5us,10us";
  std::ofstream(dir_ / "plan.json") << plan.dump();
  EXPECT_EQ(Sweep({"--resume", dir_.string()}), 2);
  EXPECT_NE(stderr_.find("does not follow"), std::string::npos) << stderr_;
}

// The sweep in a child process, on a 64 KiB tmpfs mounted in a mount
// namespace of its own: the logs and reports fill it, then runs.csv cannot
// grow past its first page. The child reports through files outside the tmpfs.
class FullDiskTest : public SweepCliTest {
 protected:
  // In the child: a private mount namespace with a small tmpfs at `mnt`;
  // "" or why not.
  static std::string MountTmpfs(const fs::path& mnt) {
    if (unshare(CLONE_NEWNS) != 0) {
      const uid_t uid = geteuid();
      const gid_t gid = getegid();
      if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        return std::string("unshare: ") + std::strerror(errno);
      }
      std::ofstream("/proc/self/setgroups") << "deny";
      std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
      std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) {
      return std::string("mount: ") + std::strerror(errno);
    }
    return "";
  }
};

TEST_F(FullDiskTest, AFullDiskStopsTheSweepWithTheRowsBeforeIntact) {
  const fs::path mnt = dir_.string() + "-mnt";
  const fs::path err = dir_.string() + "-stderr", csv = dir_.string() + ".csv";
  fs::create_directories(mnt);
  dir_ = mnt / "sweep";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    const std::string why = MountTmpfs(mnt);
    if (!why.empty()) {
      std::fprintf(stderr, "%s\n", why.c_str());
      _exit(77);
    }
    std::vector<std::string> a = Args();
    a[3] = "30";  // 150 runs: some 12 KiB of runs.csv
    const int rc = SweepMain(a, ctx_);
    fs::copy_file(dir_ / "runs.csv", csv);
    _exit(rc);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  const std::string text = Slurp(err);
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no tmpfs here: " << text;
  EXPECT_EQ(WEXITSTATUS(status), 1) << text;
  // The progress lines, then one line that says what happened.
  const std::string last = text.substr(text.rfind('\n', text.size() - 2) + 1);
  EXPECT_TRUE(OneLine(last)) << text;
  EXPECT_TRUE(last.starts_with("verbsemu sweep: cannot append to")) << last;
  EXPECT_NE(last.find("runs.csv: No space left on device"), std::string::npos)
      << last;
  const std::vector<RunRecord> runs = Runs(csv);
  EXPECT_GT(runs.size(), 5u);
  EXPECT_LT(runs.size(), 150u);
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].run, int(i));
  EXPECT_TRUE(Slurp(csv).ends_with("\n"));
}

}  // namespace
}  // namespace verbsemu::sweep
