#include "shim/internal/report_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

class ReportFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/verbsemu-report-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string dir_;
};

TEST(ReportFileTextTest, WarningsComeRightAfterTheHeaderAndAnEndLineLast) {
  const std::string report =
      "verbsemu report (pid 7): latency 1 us\n"
      "device fake0: 3 QPs\n"
      "WARNING 2 objects made through mlx5 direct verbs\n"
      "overhead: 40 ns";
  EXPECT_EQ(ReportFileText(report, {"WARNING a hidden QP"}, 7),
            "verbsemu report (pid 7): latency 1 us\n"
            "WARNING a hidden QP\n"
            "WARNING 2 objects made through mlx5 direct verbs\n"
            "device fake0: 3 QPs\n"
            "overhead: 40 ns\n"
            "verbsemu report end (pid 7)\n");
}

TEST_F(ReportFileTest, CreatedMode0600AndAppended) {
  const mode_t old = umask(022);
  const std::string path = dir_ + "/r.txt";
  std::string why;
  ASSERT_TRUE(AppendReportFile(path, "one\n", &why)) << why;
  ASSERT_TRUE(AppendReportFile(path, "two\n", &why)) << why;
  umask(old);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(Read(path), "one\ntwo\n");
}

TEST_F(ReportFileTest, ASymlinkIsNotFollowed) {
  const std::string target = dir_ + "/victim";
  std::ofstream(target) << "precious\n";
  fs::create_symlink(target, dir_ + "/r.txt");
  std::string why;
  EXPECT_FALSE(AppendReportFile(dir_ + "/r.txt", "report\n", &why));
  EXPECT_NE(why.find("cannot write the report to " + dir_ + "/r.txt"),
            std::string::npos)
      << why;
  EXPECT_EQ(Read(target), "precious\n");
}

// A file system that takes only the first 64 bytes (RLIMIT_FSIZE in a
// child, SIGXFSZ ignored: write returns short, then EFBIG): the write is
// said to be cut short, and the warnings, first, are what was kept.
TEST_F(ReportFileTest, AShortWriteIsSaidAndKeepsTheWarnings) {
  const std::string path = dir_ + "/r.txt";
  const std::string text =
      ReportFileText("verbsemu report (pid 7): x\n" + std::string(200, '.') +
                         "\nWARNING bypass\n",
                     {}, 7);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit small{64, 64};
    if (setrlimit(RLIMIT_FSIZE, &small) != 0) _exit(10);
    std::string why;
    if (AppendReportFile(path, text, &why)) _exit(11);
    _exit(why.find("was cut short (64 of ") != std::string::npos ? 0 : 12);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(Read(path), "verbsemu report (pid 7): x\nWARNING bypass\n" +
                            std::string(200, '.').substr(0, 22));
}

}  // namespace
}  // namespace verbsemu::shim::internal
