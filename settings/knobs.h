// Every VERBSEMU_* setting, described once: its variable, launcher flag,
// accepted text, default and what it does. The shim's environment parsing,
// the launcher's flags, validation messages, `verbsemu --help` and the
// settings table in docs/shim.md (checked by knobs_doc_test) all come from
// the table in knobs.cc. A new setting is one row there plus the code that
// uses its value.
#ifndef VERBSEMU_SETTINGS_KNOBS_H_
#define VERBSEMU_SETTINGS_KNOBS_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "emulate/config.h"
#include "emulate/delay_distribution.h"
#include "emulate/topology.h"
#include "models/contention/penalty_file.h"
#include "settings/defer_cpu.h"

namespace verbsemu::shim {

// VERBSEMU_TOPOLOGY: the file's classes, each class's latency law parsed
// (docs/topology.md).
struct TopologySettings {
  std::string path;
  emulate::Topology topology;
  // Per class: its latency, or nullopt when it sets none (the global
  // VERBSEMU_LATENCY holds for it, as VERBSEMU_BANDWIDTH does for a class
  // without a bandwidth).
  std::vector<std::optional<emulate::DelayDistribution>> latency;
  bool AddsSomething() const;
};

// What the shim runs with: the engine's settings plus those only the shim
// uses (which devices, where and when to report).
// VERBSEMU_PENALTIES: what VERBSEMU_FABRIC=penalty takes the penalties
// from: a model of models/contention, or a penalties file (contentionfit
// export), whose listed shapes override its model.
struct PenaltySettings {
  std::string source;  // the model's name or the file's path
  contention::PenaltyFile penalties;
};

struct Settings {
  emulate::Config engine;
  std::vector<std::string> devices;  // empty: every device
  std::string report;                // "", "stderr", or a file path
  int report_signal = 0;             // SIGUSR1/SIGUSR2: report on request
  bool allow_direct_verbs = false;   // mlx5dv stays available (unemulated)
  std::shared_ptr<const TopologySettings> topology;  // null: one class
  std::shared_ptr<const PenaltySettings> penalties;  // null: mm2011-node
  bool penalties_from_fabric = false;  // VERBSEMU_FABRIC=penalty:P or ib-hol
  // Whose shared segments (a port's link, its packet counts) these are:
  // VERBSEMU_JOB, else the launcher's job id (JobFromLauncher), else ""
  // (per user).
  std::string job;
  std::string shm_dir;  // VERBSEMU_SHM_DIR; "": shm_open objects in /dev/shm
  internal::DeferCpu defer_cpu;  // VERBSEMU_DEFER_CPU

  // Latency or bandwidth to add, globally or for a class of peers.
  bool emulating() const {
    return engine.emulating() || (topology && topology->AddsSomething());
  }
  // Some class or the global setting narrows the bandwidth.
  bool bandwidth_enabled() const;

  bool EmulatesDevice(std::string_view name) const;
};

struct Knob {
  std::string_view env;       // VERBSEMU_LATENCY
  std::string_view flag;      // --latency
  std::string_view metavar;   // D, in usage lines
  std::string_view accepts;   // what the value may be, with examples
  std::string_view fallback;  // what holds when the variable is unset
  std::string_view effect;    // what it does, one sentence
  // Parses `text` into `settings`; on refusal returns false and may say why
  // in `*why` (never null).
  bool (*apply)(std::string_view text, Settings* settings, std::string* why);
};

std::span<const Knob> Knobs();
const Knob* FindKnobByEnv(std::string_view env);
const Knob* FindKnobByFlag(std::string_view flag);

// "" when `value` is accepted, else one line naming the variable, the value,
// why it was refused and what is accepted.
std::string ValidateKnob(const Knob& knob, std::string_view value);

struct SettingsResult {
  Settings settings;
  std::string error;  // one line; empty when ok
  bool ok() const { return error.empty(); }
};

// Reads every knob through `getenv` (the shim passes secure_getenv), and
// the launcher's job id when VERBSEMU_JOB is unset. The first bad value
// stops parsing.
SettingsResult SettingsFromEnv(
    const std::function<const char*(const char*)>& getenv);

// The job id a launcher gave this process, for when VERBSEMU_JOB is unset:
// SLURM_JOB_ID, else Open MPI's (OMPI_MCA_ess_base_jobid, which mpirun's
// daemons set in every rank), else PMIX_NAMESPACE (any PMIx launcher:
// Open MPI 5's prterun, srun --mpi=pmix, Open MPI 4's own ranks); "" when
// none is set.
std::string JobFromLauncher(
    const std::function<const char*(const char*)>& getenv);

// The report path with `%p` replaced by `pid`, `%h` by `host` and `%%` by
// `%`, so every process of a job (ranks, forked children) writes its own
// file. Other `%` sequences are refused when the knob is read.
std::string ExpandReportPath(std::string_view pattern, int pid,
                             std::string_view host);

// `text` made safe to quote inside a one-line message: control and non-ASCII
// bytes become \xNN escapes.
std::string Printable(std::string_view text);

// The settings table of docs/shim.md, and the flag lines of `--help`.
std::string KnobsMarkdownTable();
std::string KnobsUsage();

}  // namespace verbsemu::shim

#endif  // VERBSEMU_SETTINGS_KNOBS_H_
