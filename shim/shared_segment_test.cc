// The node-wide shared segments through the engine, when they are not what
// the shim expects: a full file system (a private 1 MiB tmpfs as
// VERBSEMU_SHM_DIR, in a mount namespace of a child's own), a garbage file
// where the link should be, a schedule booked years ahead. Each costs the
// sharing only: the process paces on a link of its own, or resets the
// schedule, and its posts go on.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "emulate/config.h"
#include "emulate/tsc.h"
#include "emulate/units.h"
#include "shim/internal/engine.h"
#include "shim/internal/fake_device.h"
#include "shim/internal/fake_qp.h"
#include "shim/internal/port_link.h"
#include "shim/internal/report.h"
#include "shim/internal/segment_key.h"
#include "shim/internal/shim_fixture.h"

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

class SharedSegmentTest : public ShimTest {
 protected:
  void SetUp() override {
    ShimTest::SetUp();
    char tmpl[] = "/tmp/verbsemu-segtest-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    ShimTest::TearDown();
    fs::remove_all(dir_);
  }
  // Pace mode at 10 Gbit/s of 100, segments in `shm_dir`.
  void ConfigurePace(const std::string& shm_dir,
                     const char* rate = "10Gbit/s") {
    Settings s;
    s.engine.bandwidth = *emulate::ParseBandwidth(rate);
    s.engine.bw_mode = emulate::BwMode::kPace;
    s.engine.link_bits_per_s = 100e9;
    s.report = "stderr";
    s.shm_dir = shm_dir;
    Configure(s);
  }
  // The link segment's name the engine uses for fake0 port 1.
  static std::string LinkName() {
    TrafficPaths paths;
    paths.shm_prefix = TestShmPrefix();
    return LinkSegmentName(paths, "fake0", 1);
  }

  std::string dir_;
};

// Declared after a test's FakeDevice: the engine lets go of it first.
struct StopEngineFirst {
  ~StopEngineFirst() { ResetForTesting(); }
};

enum ChildExit { kPosted = 0, kNoMount = 20, kPostFailed = 21, kNoQp = 22 };

// In the child: a private mount namespace with a 1 MiB tmpfs at `mnt`,
// filled (the segment directory of the test).
int FillAPrivateTmpfs(const std::string& mnt) {
  if (unshare(CLONE_NEWNS) != 0) return kNoMount;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return kNoMount;
  }
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=1m,mode=0700") != 0) {
    return kNoMount;
  }
  const int fd = open((mnt + "/filler").c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0) return kNoMount;
  off_t filled = 0;
  while (posix_fallocate(fd, filled, 4096) == 0) filled += 4096;
  close(fd);
  return kPosted;
}

TEST_F(SharedSegmentTest, AFullShmDirMeansALinkOfItsOwnNeverASigbus) {
  const std::string mnt = dir_ + "/tiny";
  fs::create_directory(mnt);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int prepared = FillAPrivateTmpfs(mnt);
    if (prepared != kPosted) _exit(prepared);
    ConfigurePace(mnt);
    FakeDevice d("fake0");
    const FakeQpEnv r = MakeFakeQp(d, {.wr_api = false, .connect = true});
    if (r.qp == nullptr) _exit(kNoQp);
    Chain ch(1, 4096);
    if (Post(r.qp, ch) != 0 || d.post_calls.load() != 1) _exit(kPostFailed);
    _exit(kPosted);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status);
  if (WEXITSTATUS(status) == kNoMount) {
    GTEST_SKIP() << "cannot mount a tmpfs in a private mount namespace here";
  }
  EXPECT_EQ(WEXITSTATUS(status), kPosted);
}

TEST_F(SharedSegmentTest, AGarbageLinkSegmentMeansALinkOfItsOwn) {
  const std::string path = dir_ + LinkName();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  const std::string junk(sizeof(SharedLink), '\x7f');
  ASSERT_EQ(write(fd, junk.data(), junk.size()),
            static_cast<ssize_t>(junk.size()));
  close(fd);
  ConfigurePace(dir_);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 4096);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_EQ(d.post_calls.load(), 1u);
}

TEST_F(SharedSegmentTest, AScheduleBookedFarAheadIsResetAndReported) {
  std::string why;
  auto link = MapShared<SharedLink>(dir_, LinkName(), &why);
  ASSERT_NE(link, nullptr) << why;
  // Booked 20 s ahead (in the shared link's 1/64 tick), from now: beyond
  // any backlog the shim would make (1 s), short of the test's timeout.
  const uint64_t now = emulate::ReadTsc();
  link->out.epoch.store(now);
  link->out.free_at.store(static_cast<uint64_t>(Cal().NsToTicks(20e9)) * 64);
  ConfigurePace(dir_);
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 4096);
  const uint64_t t0 = emulate::ReadTsc();
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_LT(Cal().TicksToNs(d.last_post_tsc.load() - t0), 1e9)
      << "the post waited for the planted schedule";
  EXPECT_NE(ReportText().find("1 shared link schedules reset"),
            std::string::npos)
      << ReportText();
}

TEST_F(SharedSegmentTest, ADeepBacklogAtALowRateIsHonouredNotReset) {
  // Defer mode at 10 Mbit/s: 128 posts of 64 KiB are 6.7 s of link time,
  // all booked at once. A schedule 1.5 s ahead is such a backlog (below the
  // time 1 GiB takes at the rate), so the next post waits for it.
  std::string why;
  auto link = MapShared<SharedLink>(dir_, LinkName(), &why);
  ASSERT_NE(link, nullptr) << why;
  const uint64_t now = emulate::ReadTsc();
  link->out.epoch.store(now);
  link->out.free_at.store(static_cast<uint64_t>(Cal().NsToTicks(1.5e9)) * 64);
  ConfigurePace(dir_, "10Mbit/s");
  FakeDevice d("fake0");
  StopEngineFirst stop;
  Res r = MakeQp(d, false);
  Chain ch(1, 64);
  ASSERT_EQ(Post(r.qp, ch), 0);
  EXPECT_GE(Cal().TicksToNs(d.last_post_tsc.load() - now), 1.4e9)
      << "the post did not wait for the backlog";
  EXPECT_EQ(ReportText().find("shared link schedules reset"), std::string::npos)
      << ReportText();
}

}  // namespace
}  // namespace verbsemu::shim::internal
