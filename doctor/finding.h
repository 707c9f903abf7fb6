// One line of `verbsemu doctor`'s output.
#ifndef VERBSEMU_DOCTOR_FINDING_H_
#define VERBSEMU_DOCTOR_FINDING_H_

#include <string>
#include <vector>

namespace verbsemu::doctor {

struct Finding {
  // kOk: a check passed; kInfo: something to know, not a fault; kProblem:
  // emulation will not reach something, or the run would fail: exit 1.
  enum class Kind { kOk, kInfo, kProblem };
  Kind kind = Kind::kInfo;
  std::string text;  // one line, no newline

  static Finding Ok(std::string t) { return {Kind::kOk, std::move(t)}; }
  static Finding Info(std::string t) { return {Kind::kInfo, std::move(t)}; }
  static Finding Problem(std::string t) {
    return {Kind::kProblem, std::move(t)};
  }
  bool problem() const { return kind == Kind::kProblem; }
};

using Findings = std::vector<Finding>;

// "ok: ...", "info: ..." or "problem: ...".
std::string FormatFinding(const Finding& f);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_FINDING_H_
