#include "shim/shm_clean.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace verbsemu::shim {
namespace {

namespace fs = std::filesystem;

class ShmCleanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/verbsemu-shmclean-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Plant(const std::string& name) {
    const int fd =
        open((dir_ + "/" + name).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 24), 0);
    close(fd);
  }
  // Runs the command; its output in *out, its error text in *err.
  int Run(const std::vector<std::string>& args, std::string* out,
          std::string* err) {
    char* out_buf = nullptr;
    char* err_buf = nullptr;
    size_t out_len = 0, err_len = 0;
    FILE* o = open_memstream(&out_buf, &out_len);
    FILE* e = open_memstream(&err_buf, &err_len);
    const int rc = ShmCleanCommand(args, dir_.c_str(), o, e);
    fclose(o);
    fclose(e);
    *out = out_buf;
    *err = err_buf;
    free(out_buf);
    free(err_buf);
    return rc;
  }

  std::string dir_;
};

TEST_F(ShmCleanTest, ListsTheCallersSegmentsAndLeavesThem) {
  Plant("verbsemu-v2-u0-fake0-p1");
  Plant("verbsemu-link-v2-u0-fake0-p1");
  Plant("other-file");
  fs::create_symlink(dir_ + "/other-file", dir_ + "/verbsemu-link-v2-x");
  std::string out, err;
  EXPECT_EQ(Run({}, &out, &err), 0) << err;
  EXPECT_EQ(out, dir_ + "/verbsemu-link-v2-u0-fake0-p1 (24 bytes)\n" + dir_ +
                     "/verbsemu-v2-u0-fake0-p1 (24 bytes)\n");
  EXPECT_TRUE(fs::exists(dir_ + "/verbsemu-v2-u0-fake0-p1"));
}

TEST_F(ShmCleanTest, UnlinkRemovesOnlyTheSegments) {
  Plant("verbsemu-v2-u0-fake0-p1");
  Plant("other-file");
  fs::create_symlink(dir_ + "/other-file", dir_ + "/verbsemu-link-v2-x");
  std::string out, err;
  EXPECT_EQ(Run({"--unlink"}, &out, &err), 0) << err;
  EXPECT_EQ(out, "removed " + dir_ + "/verbsemu-v2-u0-fake0-p1\n");
  EXPECT_FALSE(fs::exists(dir_ + "/verbsemu-v2-u0-fake0-p1"));
  EXPECT_TRUE(fs::exists(dir_ + "/other-file"));
  EXPECT_TRUE(fs::is_symlink(dir_ + "/verbsemu-link-v2-x"));
}

TEST_F(ShmCleanTest, BadInputIsOneLine) {
  std::string out, err;
  EXPECT_EQ(Run({"--force"}, &out, &err), 2);
  EXPECT_NE(err.find("unknown argument '--force'"), std::string::npos);
  EXPECT_EQ(err.find('\n'), err.size() - 1);
  fs::remove_all(dir_);
  EXPECT_EQ(Run({}, &out, &err), 1);
  EXPECT_NE(err.find("cannot read " + dir_), std::string::npos) << err;
}

}  // namespace
}  // namespace verbsemu::shim
