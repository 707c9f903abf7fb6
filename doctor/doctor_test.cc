#include "doctor/doctor.h"

#include <gtest/gtest.h>

#include "doctor/fake_system_view.h"
#include "doctor/libibverbs_check.h"

namespace verbsemu::doctor {
namespace {

// Records the device it was asked to test and answers ok.
class FakeSelfTest : public SelfTest {
 public:
  Findings Run(const std::string& device) const override {
    asked = device;
    return {Finding::Ok("self-test on " + device + ": fake")};
  }
  mutable std::string asked;
};

// A machine where everything is fine except what a test changes.
FakeSystemView HealthyMachine() {
  FakeSystemView v;
  v.libibverbs.error = "not in this test";
  v.AddDevice("rxe0", "", "1: CA", "Ethernet");
  v.AddDevice("rxe1", "", "1: CA", "Ethernet");
  v.spaces["/dev/shm"] = {true, true, 1ull << 30};
  return v;
}

int ExitOf(const Findings& f) {
  for (const Finding& x : f) {
    if (x.problem()) return 1;
  }
  return 0;
}

TEST(ParseDoctorArgs, Options) {
  DoctorOptions o = ParseDoctorArgs({});
  EXPECT_TRUE(o.error.empty());
  EXPECT_TRUE(o.self_test);
  o = ParseDoctorArgs({"--device", "mlx5_1", "--no-self-test"});
  EXPECT_EQ(o.device, "mlx5_1");
  EXPECT_FALSE(o.self_test);
  EXPECT_EQ(ParseDoctorArgs({"--device=mlx5_2"}).device, "mlx5_2");
  EXPECT_EQ(ParseDoctorArgs({"--self-test-child", "rxe0"}).child_device,
            "rxe0");
  EXPECT_TRUE(ParseDoctorArgs({"-h"}).help);
}

TEST(ParseDoctorArgs, BadArgumentsAreOneLine) {
  EXPECT_EQ(ParseDoctorArgs({"--fast"}).error,
            "unrecognised option '--fast' (usage: verbsemu doctor [--device "
            "NAME] [--no-self-test])");
  EXPECT_EQ(ParseDoctorArgs({"--device"}).error,
            "the required argument for option '--device' is missing (usage: "
            "verbsemu doctor [--device NAME] [--no-self-test])");
  EXPECT_EQ(ParseDoctorArgs({"--device", ""}).error,
            "--device needs a device name (usage: verbsemu doctor [--device "
            "NAME] [--no-self-test])");
  EXPECT_EQ(ParseDoctorArgs({"rxe0"}).error,
            "unexpected argument 'rxe0' (usage: verbsemu doctor [--device "
            "NAME] [--no-self-test])");
  // Names in full: --self-test is not --self-test-child.
  EXPECT_FALSE(ParseDoctorArgs({"--self-test", "rxe0"}).error.empty());
  EXPECT_FALSE(ParseDoctorArgs({"--dev", "rxe0"}).error.empty());
}

// The usage and verbsemu's table of subcommands come from the options.
TEST(ParseDoctorArgs, TheUsageComesFromTheOptions) {
  EXPECT_EQ(DoctorSynopsis(), "[--device NAME] [--no-self-test]");
  const DoctorOptions twice = ParseDoctorArgs(
      {"--no-self-test", "--device", "a", "--no-self-test", "--device=b"});
  EXPECT_TRUE(twice.error.empty()) << twice.error;
  EXPECT_EQ(twice.device, "b");
  EXPECT_FALSE(twice.self_test);
}

TEST(RunChecks, HealthyMachineExitsZeroAndTestsTheFirstDevice) {
  FakeSystemView v = HealthyMachine();
  // A libibverbs the loader finds but whose image is not in the view.
  v.libibverbs = {"/lib/libibverbs.so.1.14.44.0", ""};
  v.files[v.libibverbs.path] = "junk";
  FakeSelfTest t;
  Findings f = RunChecks({}, v, t);
  EXPECT_EQ(t.asked, "rxe0");
  // Only the unreadable library is a problem.
  int problems = 0;
  for (const Finding& x : f) problems += x.problem();
  EXPECT_EQ(problems, 1);
  EXPECT_EQ(FormatFinding(f.back()), "ok: self-test on rxe0: fake");
}

TEST(RunChecks, DeviceOptionPicksTheSelfTestDevice) {
  const FakeSystemView v = HealthyMachine();
  FakeSelfTest t;
  DoctorOptions o;
  o.device = "rxe1";
  RunChecks(o, v, t);
  EXPECT_EQ(t.asked, "rxe1");
  o.device = "mlx5_0";
  t.asked.clear();
  const Findings f = RunChecks(o, v, t);
  EXPECT_TRUE(t.asked.empty());
  EXPECT_EQ(f.back().text,
            "no RDMA device mlx5_0 (there are: rxe0, rxe1): nothing to test");
}

TEST(RunChecks, NoDeviceSkipsTheSelfTestWithAProblem) {
  FakeSystemView v;
  v.spaces["/dev/shm"] = {true, true, 1ull << 30};
  FakeSelfTest t;
  const Findings f = RunChecks({}, v, t);
  EXPECT_TRUE(t.asked.empty());
  EXPECT_EQ(FormatFinding(f.back()),
            "problem: no RDMA device: nothing to test");
  EXPECT_EQ(ExitOf(f), 1);
}

TEST(RunChecks, EfaAndIwarpSkipTheSelfTestWithAnInfoLine) {
  FakeSystemView v;
  v.spaces["/dev/shm"] = {true, true, 1ull << 30};
  v.AddDevice("efa_0", "../../efa", "1: CA", "Unspecified");
  v.AddDevice("irdma0", "../../irdma", "4: RNIC", "Ethernet");
  FakeSelfTest t;
  DoctorOptions o;
  Findings f = RunChecks(o, v, t);
  EXPECT_TRUE(t.asked.empty());
  EXPECT_EQ(FormatFinding(f.back()),
            "info: self-test on efa_0 skipped: EFA has no RC QPs to test "
            "with; nothing here checked that its QPs are emulated");
  o.device = "irdma0";
  f = RunChecks(o, v, t);
  EXPECT_TRUE(t.asked.empty());
  EXPECT_EQ(f.back().kind, Finding::Kind::kInfo);
  EXPECT_NE(f.back().text.find("iWARP QP connects only through rdma_cm"),
            std::string::npos);
}

TEST(Report, OneLinePerFindingAndTheExitStatus) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* out = open_memstream(&buf, &len);
  ASSERT_NE(out, nullptr);
  const int rc = Report({Finding::Info("a"), Finding::Ok("b")}, out);
  const int rc_problem = Report({Finding::Problem("c")}, out);
  std::fclose(out);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(rc_problem, 1);
  EXPECT_EQ(std::string(buf, len), "info: a\nok: b\nproblem: c\n");
  free(buf);
}

}  // namespace
}  // namespace verbsemu::doctor
