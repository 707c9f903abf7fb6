#include "doctor/doctor.h"

#include <cstdio>

#include "cli/cli.h"
#include "doctor/devices_check.h"
#include "doctor/env_check.h"
#include "doctor/libibverbs_check.h"
#include "doctor/shm_check.h"

namespace verbsemu::doctor {

std::string FormatFinding(const Finding& f) {
  switch (f.kind) {
    case Finding::Kind::kOk:
      return "ok: " + f.text;
    case Finding::Kind::kInfo:
      return "info: " + f.text;
    case Finding::Kind::kProblem:
      break;
  }
  return "problem: " + f.text;
}

namespace {
namespace po = boost::program_options;

// The value given last of `name`'s, "" when not given.
std::string Last(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>().back() : "";
}

}  // namespace

const po::options_description& DoctorOptionsDescription() {
  static const po::options_description options = [] {
    po::options_description o("options");
    o.add_options()("device",
                    po::value<std::vector<std::string>>()->value_name("NAME"),
                    "the RDMA device the self-test opens (default: the first)")(
        "no-self-test", cli::Switch(),
        "skip the self-test: doctor run again under the shim, connecting an "
        "RC QP to itself on the device, which the shim must report")(
        "help,h", cli::Switch(), "print the usage and the options, and exit");
    return o;
  }();
  return options;
}

std::string DoctorSynopsis() {
  std::string out;
  for (const auto& d : DoctorOptionsDescription().options()) {
    if (d->long_name() == "help") continue;
    const std::string value = d->format_parameter();
    out += (out.empty() ? "[--" : " [--") + d->long_name() +
           (value.empty() ? "" : " " + value) + "]";
  }
  return out;
}

std::string DoctorUsage() {
  return "usage: verbsemu doctor " + DoctorSynopsis();
}

DoctorOptions ParseDoctorArgs(const std::vector<std::string>& args) {
  DoctorOptions o;
  po::options_description all;
  all.add(DoctorOptionsDescription())
      .add_options()("self-test-child", po::value<std::vector<std::string>>());
  try {
    const po::variables_map vm = cli::Parse(args, all, {}, cli::Names::kWhole);
    o.help = vm.count("help") > 0;
    o.self_test = vm.count("no-self-test") == 0;
    o.device = Last(vm, "device");
    o.child_device = Last(vm, "self-test-child");
    for (const char* name : {"device", "self-test-child"}) {
      if (vm.count(name) && Last(vm, name).empty()) {
        o.error = "--" + std::string(name) + " needs a device name";
      }
    }
  } catch (const cli::UsageError& e) {
    o.error = e.what();
  }
  if (!o.error.empty()) o.error += " (" + DoctorUsage() + ")";
  return o;
}

namespace {

void Append(Findings& to, Findings from) {
  for (Finding& f : from) to.push_back(std::move(f));
}

// The self-test connects an RC QP with ibv_modify_qp alone: EFA has no RC
// QPs, and an iWARP QP connects only through rdma_cm.
Findings TestOrSkip(const DeviceInfo& d, const SelfTest& self_test) {
  const std::string skipped = "self-test on " + d.name + " skipped: ";
  if (d.provider == "efa") {
    return {Finding::Info(skipped + "EFA has no RC QPs to test with; "
                                    "nothing here checked that its QPs are "
                                    "emulated")};
  }
  if (d.iwarp()) {
    return {Finding::Info(skipped + "an iWARP QP connects only through "
                                    "rdma_cm; nothing here checked that its "
                                    "QPs are emulated")};
  }
  return self_test.Run(d.name);
}

// The self-test's device: --device, else the first one.
Findings SelfTestFindings(const DoctorOptions& o,
                          const std::vector<DeviceInfo>& devices,
                          const SelfTest& self_test) {
  if (!o.self_test) {
    return {Finding::Info("self-test skipped (--no-self-test)")};
  }
  if (devices.empty()) {
    return {Finding::Problem("no RDMA device: nothing to test")};
  }
  if (o.device.empty()) return TestOrSkip(devices.front(), self_test);
  std::string names;
  for (const DeviceInfo& d : devices) {
    if (d.name == o.device) return TestOrSkip(d, self_test);
    names += (names.empty() ? "" : ", ") + d.name;
  }
  return {Finding::Problem("no RDMA device " + o.device +
                           " (there are: " + names + "): nothing to test")};
}

}  // namespace

Findings RunChecks(const DoctorOptions& options, const SystemView& view,
                   const SelfTest& self_test) {
  Findings all = CheckLibibverbs(view);
  const std::vector<DeviceInfo> devices = ListDevices(view);
  Append(all, CheckDevices(devices));
  Append(all, CheckEnvironment(view));
  Append(all, CheckSharedMemory(view));
  Append(all, SelfTestFindings(options, devices, self_test));
  return all;
}

int Report(const Findings& findings, std::FILE* out) {
  bool problem = false;
  for (const Finding& f : findings) {
    std::fprintf(out, "%s\n", FormatFinding(f).c_str());
    problem = problem || f.problem();
  }
  std::fflush(out);
  return problem ? 1 : 0;
}

int DoctorCommand(const std::vector<std::string>& args,
                  const std::string& self_exe) {
  const DoctorOptions o = ParseDoctorArgs(args);
  if (!o.error.empty()) {
    std::fprintf(stderr, "verbsemu doctor: %s\n", o.error.c_str());
    return 2;
  }
  if (o.help) {
    std::fputs(cli::Help(DoctorUsage(), DoctorOptionsDescription()).c_str(),
               stdout);
    return 0;
  }
  if (!o.child_device.empty()) return RunSelfTestChild(o.child_device);
  const RealSystemView view;
  const ProcessSelfTest self_test(self_exe);
  return Report(RunChecks(o, view, self_test), stdout);
}

}  // namespace verbsemu::doctor
