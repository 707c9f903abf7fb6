// `verbsemu doctor`: what a user runs on a new cluster before trusting a
// sweep. One line per finding on stdout ("ok: ", "info: ", "problem: ");
// exit 0 when emulation will reach everything it can see, 1 when some line
// is a problem, 2 (one line on stderr) for bad arguments.
//   verbsemu doctor [--device NAME] [--no-self-test]
#ifndef VERBSEMU_DOCTOR_DOCTOR_H_
#define VERBSEMU_DOCTOR_DOCTOR_H_

#include <boost/program_options.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "doctor/finding.h"
#include "doctor/self_test.h"
#include "doctor/system_view.h"

namespace verbsemu::doctor {

struct DoctorOptions {
  std::string device;        // --device: the self-test's device
  bool self_test = true;     // --no-self-test clears it
  std::string child_device;  // --self-test-child DEV (internal)
  bool help = false;
  std::string error;  // one line; empty when the arguments are fine
};

// The options --help lists: the parser, the usage and verbsemu's table
// of subcommands come from it (--self-test-child is the parser's alone).
const boost::program_options::options_description& DoctorOptionsDescription();

// "[--device NAME] [--no-self-test]", from the description.
std::string DoctorSynopsis();

// "usage: verbsemu doctor " and the synopsis.
std::string DoctorUsage();

// Parses the arguments after "doctor".
DoctorOptions ParseDoctorArgs(const std::vector<std::string>& args);

// Every check, in order: libibverbs, devices, environment, shared memory,
// the self-test.
Findings RunChecks(const DoctorOptions& options, const SystemView& view,
                   const SelfTest& self_test);

// Prints `findings` to `out` and returns the exit status (0 or 1).
int Report(const Findings& findings, std::FILE* out);

// `verbsemu doctor ARGS...` on this machine; `self_exe` is this binary.
int DoctorCommand(const std::vector<std::string>& args,
                  const std::string& self_exe);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_DOCTOR_H_
