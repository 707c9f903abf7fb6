#include "base/read_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace verbsemu::base {
namespace {

namespace fs = std::filesystem;

class ReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/verbsemu-readfile-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ReadFileTest, ARegularFileIsRead) {
  std::ofstream(dir_ + "/t") << "link a 1us\n";
  std::string text, error;
  ASSERT_TRUE(ReadFileText(dir_ + "/t", 1 << 20, &text, &error)) << error;
  EXPECT_EQ(text, "link a 1us\n");
}

TEST_F(ReadFileTest, ADeviceIsRefused) {
  std::string text, error;
  EXPECT_FALSE(ReadFileText("/dev/null", 1 << 20, &text, &error));
  EXPECT_EQ(error, "not a regular file");
}

// A FIFO nobody writes: refused at once, never a blocked open (checked in
// a child with an alarm, so a regression fails instead of hanging).
TEST_F(ReadFileTest, AFifoIsRefusedWithoutBlocking) {
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(5);
    std::string text, error;
    const bool read = ReadFileText(fifo, 1 << 20, &text, &error);
    _exit(!read && error == "not a regular file" ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "blocked (killed by its alarm)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace verbsemu::base
