#include "sweep/internal/write_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace verbsemu::sweep::internal {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

// The system's calls, but the disk fills after `space` bytes and the
// chosen call fails.
struct Faulty {
  long space = 1 << 30;
  bool fail_fsync = false, fail_rename = false, fail_close = false;
  FileOps ops = SystemFileOps();
  Faulty() {
    ops.write = [this](int fd, const void* d, size_t n) -> ssize_t {
      if (space <= 0) {
        errno = ENOSPC;
        return -1;
      }
      const size_t k = std::min(n, static_cast<size_t>(space));
      space -= static_cast<long>(k);
      return ::write(fd, d, k);  // a short write, then ENOSPC
    };
    ops.fsync = [this](int fd) {
      if (fail_fsync) {
        errno = EIO;
        return -1;
      }
      return ::fsync(fd);
    };
    ops.rename = [this](const char* a, const char* b) {
      if (fail_rename) {
        errno = EXDEV;
        return -1;
      }
      return ::rename(a, b);
    };
  }
};

class WriteFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = fs::path(tmp ? tmp : "/tmp") /
           (std::string("wf-") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "runs.csv").string();
    std::ofstream(path_) << "old\n";
  }
  // Only the target is left in the directory: no temp file.
  void ExpectNoTemp() {
    for (const auto& e : fs::directory_iterator(dir_)) {
      EXPECT_FALSE(IsTempName(e.path().filename().string())) << e.path();
    }
  }
  fs::path dir_;
  std::string path_;
  std::string why_;
};

TEST_F(WriteFileTest, ReplacesTheFileWhole) {
  ASSERT_TRUE(WriteFileAtomic(path_, "new\ncontents\n", &why_)) << why_;
  EXPECT_EQ(Slurp(path_), "new\ncontents\n");
  ExpectNoTemp();
}

TEST_F(WriteFileTest, AFullDiskAtAnyByteKeepsTheOldFile) {
  const std::string text(10000, 'x');
  for (long space : {0L, 1L, 4095L, 9999L}) {
    Faulty f;
    f.space = space;
    EXPECT_FALSE(WriteFileAtomic(path_, text, &why_, f.ops)) << space;
    EXPECT_NE(why_.find("No space left"), std::string::npos) << why_;
    EXPECT_NE(why_.find(path_), std::string::npos) << why_;
    EXPECT_EQ(why_.find('\n'), std::string::npos);
    EXPECT_EQ(Slurp(path_), "old\n");
    ExpectNoTemp();
  }
}

TEST_F(WriteFileTest, AFailedSyncOrRenameKeepsTheOldFile) {
  Faulty sync;
  sync.fail_fsync = true;
  EXPECT_FALSE(WriteFileAtomic(path_, "new\n", &why_, sync.ops));
  EXPECT_NE(why_.find("cannot sync"), std::string::npos) << why_;
  EXPECT_EQ(Slurp(path_), "old\n");
  Faulty rename;
  rename.fail_rename = true;
  EXPECT_FALSE(WriteFileAtomic(path_, "new\n", &why_, rename.ops));
  EXPECT_NE(why_.find("cannot rename"), std::string::npos) << why_;
  EXPECT_EQ(Slurp(path_), "old\n");
  ExpectNoTemp();
}

TEST_F(WriteFileTest, AnUnwritableDirectoryIsOneLine) {
  EXPECT_FALSE(WriteFileAtomic("/no/such/dir/plan.json", "{}", &why_));
  EXPECT_NE(why_.find("/no/such/dir/plan.json"), std::string::npos) << why_;
}

TEST_F(WriteFileTest, AFailedAppendLeavesTheRowsBeforeIt) {
  Faulty f;
  Appender out(f.ops);
  ASSERT_TRUE(out.Open(path_, &why_)) << why_;
  ASSERT_TRUE(out.Append("row 1", &why_)) << why_;
  f.space = 3;  // "row" fits, " 2\n" does not
  EXPECT_FALSE(out.Append("row 2", &why_));
  EXPECT_NE(why_.find("No space left"), std::string::npos) << why_;
  EXPECT_EQ(Slurp(path_), "old\nrow 1\n");
  f.space = 100;
  f.fail_fsync = true;
  EXPECT_FALSE(out.Append("row 3", &why_));
  EXPECT_EQ(Slurp(path_), "old\nrow 1\n");
}

TEST(TempNameTest, OnlyTheWritersTempFiles) {
  EXPECT_TRUE(IsTempName(".runs.csv.tmp-a1b2c3"));
  EXPECT_FALSE(IsTempName("runs.csv"));
  EXPECT_FALSE(IsTempName(".lock"));
}

}  // namespace
}  // namespace verbsemu::sweep::internal
