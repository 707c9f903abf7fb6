#include "doctor/doctor.h"

#include <cstdio>

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

std::string DoctorUsage() {
  return "usage: verbsemu doctor [--device NAME] [--no-self-test]";
}

DoctorOptions ParseDoctorArgs(const std::vector<std::string>& args) {
  DoctorOptions o;
  for (size_t i = 0; i < args.size() && o.error.empty(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--no-self-test") {
      o.self_test = false;
    } else if ((a == "--device" || a == "--self-test-child") && has_value &&
               !args[i + 1].empty()) {
      (a == "--device" ? o.device : o.child_device) = args[++i];
    } else if (a.starts_with("--device=") && a.size() > 9) {
      o.device = a.substr(9);
    } else if (a == "--device" || a == "--self-test-child") {
      o.error = a + " needs a device name";
    } else {
      o.error = "unknown argument '" + a + "'";
    }
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
    std::printf("%s\n", DoctorUsage().c_str());
    return 0;
  }
  if (!o.child_device.empty()) return RunSelfTestChild(o.child_device);
  const RealSystemView view;
  const ProcessSelfTest self_test(self_exe);
  return Report(RunChecks(o, view, self_test), stdout);
}

}  // namespace verbsemu::doctor
