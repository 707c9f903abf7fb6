// Check 5: the self-test. doctor runs itself again through the launcher
//   verbsemu run --report FILE --latency 1us --devices DEV --
//       verbsemu doctor --self-test-child DEV
// and the child makes one RC QP connected to itself through a privately
// dlopen'ed libibverbs, as NCCL does (self_test_child.cc). The shim must
// then report the device with the QP and its WR.
#ifndef VERBSEMU_DOCTOR_SELF_TEST_H_
#define VERBSEMU_DOCTOR_SELF_TEST_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/finding.h"

namespace verbsemu::doctor {

class SelfTest {
 public:
  virtual ~SelfTest() = default;
  // One ok or problem line (and perhaps info before it).
  virtual Findings Run(const std::string& device) const = 0;
};

// The real one: runs `self_exe` (this binary) as above, killed after
// `timeout_s`.
class ProcessSelfTest : public SelfTest {
 public:
  explicit ProcessSelfTest(std::string self_exe, int timeout_s = 20)
      : self_(std::move(self_exe)), timeout_s_(timeout_s) {}
  Findings Run(const std::string& device) const override;

 private:
  std::string self_;
  int timeout_s_;
};

// The child's command line.
std::vector<std::string> SelfTestArgv(const std::string& self,
                                      const std::string& report,
                                      const std::string& device);

// How the child ended: its exit code, or the signal that ended it, or
// killed at the timeout.
struct ChildEnd {
  int exit_code = -1;  // -1 when it did not exit
  bool timed_out = false;
  int signal = 0;         // when a signal other than the timeout's ended it
  std::string last_line;  // the last line it printed, for a failure
};

// The verdict from the report's text (nullopt: no report file) and the
// child's end: ok when the report has "device DEV: qps N, wrs M" with N, M
// at least 1.
Finding JudgeSelfTest(const std::string& device,
                      const std::optional<std::string>& report,
                      const ChildEnd& end);

// The child side: `verbsemu doctor --self-test-child DEV`. Exit 0 when the
// send and the receive both completed; else one line on stderr, exit 1.
int RunSelfTestChild(const std::string& device);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_SELF_TEST_H_
