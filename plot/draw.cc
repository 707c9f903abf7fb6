#include "plot/draw.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

namespace verbsemu::plot {
namespace {

// The first three lines of `path`, on one line.
std::string Head(const std::string& path) {
  std::ifstream in(path);
  std::string line, out;
  for (int i = 0; i < 3 && std::getline(in, line); ++i) {
    out += (i ? " " : "") + line;
  }
  return out;
}

}  // namespace

bool GnuplotInstalled() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/gnuplot";
    if (access(candidate.c_str(), X_OK) == 0 &&
        std::filesystem::is_regular_file(candidate)) {
      return true;
    }
  }
  return false;
}

std::string Draw(const std::string& script) {
  const std::string log = script + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::string program = "gnuplot";
  char* argv[] = {program.data(), const_cast<char*>(script.c_str()), nullptr};
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return "cannot run gnuplot on " + script + ": " + std::strerror(rc);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::error_code ec;
    if (std::filesystem::file_size(log, ec) == 0 && !ec) {
      std::filesystem::remove(log, ec);
    }
    return "";
  }
  return "gnuplot failed on " + script + ": " + Head(log);
}

}  // namespace verbsemu::plot
