// The fixture of the `verbsemu sweep` tests: a fake command with a known
// response (metric = 50 + 2.5 x added latency in µs + seeded Gaussian
// noise, one shim JSON report per run written where VERBSEMU_REPORT says),
// and
// SweepMain called with its output captured.
#ifndef VERBSEMU_SWEEP_CLI_TEST_UTIL_H_
#define VERBSEMU_SWEEP_CLI_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "emulate/units.h"
#include "report/schema.h"
#include "sweep/cli.h"
#include "sweep/executor.h"

namespace verbsemu::sweep {

namespace fs = std::filesystem;
using Json = nlohmann::json;

inline std::string Slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

inline std::string EnvOf(const RunRequest& r, const std::string& name) {
  for (const auto& [k, v] : r.env) {
    if (k == name) return v;
  }
  return "";
}

// A shim JSON report (report/schema.h) of an emulated process.
inline Json FakeShimReport(int pid) {
  return {{"schema", std::string(report::kSchema)},
          {"pid", pid},
          {"command", "app"},
          {"emulated", true},
          {"config_error", ""},
          {"warnings", Json::array()}};
}

// A warning the shim marks as invalidating emulation.
inline Json InvalidatingWarning() {
  return {{"code", "hidden-qps"},
          {"severity", "error"},
          {"invalidates", true},
          {"text",
           "WARNING: rxe0: 1 QP of this process that the shim never "
           "saw"}};
}

class FakeCommand : public Executor {
 public:
  double slope = 2.5, noise_sd = 0.5;
  double wall_s = 0.001;  // each run's wall time
  // Called with the run's number (from 1, the pilot included) and latency
  // in µs; may change the reports (a list of JSON documents, one process's
  // each) or the output.
  std::function<void(int call, double latency_us, Json* reports,
                     std::string* output)>
      tweak;
  int calls = 0;
  // The run's exit status, by call (none: 0).
  std::function<int(int call)> exit_code;

  RunOutcome Run(const RunRequest& req) override {
    ++calls;
    std::string why;
    const std::string lat = EnvOf(req, "VERBSEMU_LATENCY");
    const double us = lat.empty() || lat == "0"
                          ? 0
                          : *units::ParseDurationNs(lat, &why) / 1e3;
    std::normal_distribution<double> noise(0, noise_sd);
    char out[64];
    std::snprintf(out, sizeof out, "step 1\nvalue t=%.4f\n",
                  50 + slope * us + noise(rng_));
    std::string output = out;
    Json reports = Json::array({FakeShimReport(1000 + calls)});
    if (tweak) tweak(calls, us, &reports, &output);
    const std::string rep = EnvOf(req, "VERBSEMU_REPORT");
    for (size_t i = 0; !rep.empty() && i < reports.size(); ++i) {
      const std::string path = rep.substr(0, rep.rfind('/')) + "/host." +
                               std::to_string(calls) + "." + std::to_string(i) +
                               ".txt";
      std::ofstream(path) << "verbsemu report (human text, not read)\n";
      std::ofstream(path + ".json") << reports[i].dump();
    }
    std::ofstream(req.log_path) << output;
    RunOutcome o;
    o.started = true;
    o.exit_code = exit_code ? exit_code(calls) : 0;
    o.wall_s = wall_s;
    o.output = output;
    return o;
  }

 private:
  std::mt19937_64 rng_{12345};
};

class SweepCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    dir_ = fs::path(tmp ? tmp : "/tmp") /
           (std::string("sweep-") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            "-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    ctx_.lib_path = "/opt/verbsemu/libverbsemu.so";
    ctx_.executor = &fake_;
  }
  int Sweep(std::vector<std::string> args) {
    ::testing::internal::CaptureStderr();
    ::testing::internal::CaptureStdout();
    const int rc = SweepMain(args, ctx_);
    stdout_ = ::testing::internal::GetCapturedStdout();
    stderr_ = ::testing::internal::GetCapturedStderr();
    return rc;
  }
  std::vector<std::string> Args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"--latency",  "0,1us,2us,5us,10us",
                                  "--repeat",   "5",
                                  "--seed",     "3",
                                  "--metric",   "regex:t=([0-9.]+)",
                                  "--no-plot",  "--out",
                                  dir_.string()};
    a.insert(a.end(), extra.begin(), extra.end());
    a.insert(a.end(), {"--", "/bin/true"});
    return a;
  }
  Json Result() { return Json::parse(Slurp(dir_ / "sweep.json")); }

  fs::path dir_;
  FakeCommand fake_;
  CliContext ctx_;
  std::string stdout_, stderr_;
};

}  // namespace verbsemu::sweep

#endif  // VERBSEMU_SWEEP_CLI_TEST_UTIL_H_
