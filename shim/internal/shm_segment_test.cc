#include "shim/internal/shm_segment.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace verbsemu::shim::internal {
namespace {

namespace fs = std::filesystem;

struct Counts {
  static constexpr uint64_t kTag = SegmentTag(99, 1);
  std::atomic<uint64_t> tag{0};
  std::atomic<uint64_t> a{0};
  std::atomic<uint64_t> b{0};
};

class ShmDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/verbsemu-shmdir-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A file at `name` in the directory, `bytes` long, mode `mode`.
  void Plant(const std::string& name, off_t bytes, mode_t mode) {
    const std::string path = dir_ + name;
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, mode);
    ASSERT_GE(fd, 0) << path;
    ASSERT_EQ(ftruncate(fd, bytes), 0);
    ASSERT_EQ(fchmod(fd, mode), 0);
    close(fd);
  }
  // Maps `name` expecting a refusal; returns the one line given.
  std::string Refused(const std::string& name) {
    std::string why;
    EXPECT_EQ(MapShared<Counts>(dir_, name, &why), nullptr);
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_NE(why.find(dir_ + name), std::string::npos) << why;
    return why;
  }

  std::string dir_;
};

TEST_F(ShmDirTest, SegmentsAreFilesInTheDirectoryWithMode0600) {
  std::string why;
  auto first = MapShared<Counts>(dir_, "/verbsemu-v2-u0-dev0-p1", &why);
  ASSERT_NE(first, nullptr) << why;
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/verbsemu-v2-u0-dev0-p1").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(static_cast<size_t>(st.st_size), sizeof(Counts));
  EXPECT_GT(st.st_blocks, 0) << "pages not allocated up front";
  EXPECT_EQ(first->a.load(), 0u);
  first->a.store(7);
  // A second mapping (another process's) sees the same counts.
  auto second = MapShared<Counts>(dir_, "/verbsemu-v2-u0-dev0-p1", &why);
  ASSERT_NE(second, nullptr) << why;
  EXPECT_EQ(second->a.load(), 7u);
}

TEST_F(ShmDirTest, WithoutADirectoryTheyAreShmObjects) {
  const std::string name = "/verbsemu-test-shmobj-" + std::to_string(getpid());
  std::string why;
  auto p = MapShared<Counts>("", name, &why);
  ASSERT_NE(p, nullptr) << why;
  struct stat st;
  ASSERT_EQ(stat(("/dev/shm" + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  UnlinkSharedObject("", name);
  EXPECT_NE(stat(("/dev/shm" + name).c_str(), &st), 0);
}

TEST_F(ShmDirTest, AWrongSizeFileIsRefusedWithOneLine) {
  Plant("/seg", 100, 0600);
  const std::string why = Refused("/seg");
  EXPECT_NE(why.find("100 bytes, not " + std::to_string(sizeof(Counts))),
            std::string::npos)
      << why;
}

// Seen by another user, this user's object is foreign: the check that
// refuses it, on a real file's status (chown to another uid needs root and
// a user namespace that maps it, which Bazel's sandbox does not give).
TEST_F(ShmDirTest, AForeignOwnedFileIsRefusedWithOneLine) {
  Plant("/seg", 0, 0600);
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/seg").c_str(), &st), 0);
  EXPECT_EQ(SegmentRefusal(st, st.st_uid, sizeof(Counts)), "");
  const uid_t other = st.st_uid + 1;
  EXPECT_EQ(SegmentRefusal(st, other, sizeof(Counts)),
            "owned by uid " + std::to_string(st.st_uid) + ", not " +
                std::to_string(other));
}

TEST_F(ShmDirTest, AFileOthersMayReadIsRefused) {
  Plant("/seg", 0, 0644);
  const std::string why = Refused("/seg");
  EXPECT_NE(why.find("mode 0644, not 0600"), std::string::npos) << why;
}

TEST_F(ShmDirTest, ASymlinkIsNotFollowed) {
  Plant("/real", 0, 0600);
  fs::create_symlink(dir_ + "/real", dir_ + "/seg");
  const std::string why = Refused("/seg");
  EXPECT_NE(why.find(std::strerror(ELOOP)), std::string::npos) << why;
}

TEST_F(ShmDirTest, AGarbageSegmentIsRefusedWithOneLine) {
  // The right size and mode, but not a segment of this layout.
  const std::string path = dir_ + "/seg";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  const std::string junk(sizeof(Counts), '\x5a');
  ASSERT_EQ(write(fd, junk.data(), junk.size()),
            static_cast<ssize_t>(junk.size()));
  close(fd);
  const std::string why = Refused("/seg");
  EXPECT_NE(why.find("tag 5a5a5a5a5a5a5a5a, not this layout's"),
            std::string::npos)
      << why;
}

// Counts' layout, version 2.
struct OtherCounts {
  static constexpr uint64_t kTag = SegmentTag(99, 2);
  std::atomic<uint64_t> tag{0};
  std::atomic<uint64_t> a{0};
  std::atomic<uint64_t> b{0};
};

TEST_F(ShmDirTest, AnotherLayoutsTagIsRefused) {
  using Other = OtherCounts;
  std::string why;
  ASSERT_NE(MapShared<Other>(dir_, "/seg", &why), nullptr) << why;
  EXPECT_NE(Refused("/seg").find("not this layout's"), std::string::npos);
}

// A tmpfs of one page, filled: the segment's pages cannot be had, which
// must be an error naming the file, never a SIGBUS at the first store.
TEST_F(ShmDirTest, AFullFileSystemIsAnErrorNotASigbus) {
  const std::string mnt = dir_ + "/tiny";
  fs::create_directory(mnt);
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=4k,mode=0700") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  }
  struct Unmount {
    std::string at;
    ~Unmount() { umount2(at.c_str(), MNT_DETACH); }
  } unmount{mnt};
  const int fd = open((mnt + "/filler").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  off_t filled = 0;
  while (posix_fallocate(fd, filled, 4096) == 0) filled += 4096;
  close(fd);
  std::string why;
  auto p = MapShared<Counts>(mnt, "/seg", &why);
  EXPECT_EQ(p, nullptr);
  EXPECT_NE(why.find(mnt + "/seg: posix_fallocate: " + std::strerror(ENOSPC)),
            std::string::npos)
      << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace verbsemu::shim::internal
