#include "verbsbench/engine.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "verbsbench/internal/control.h"
#include "verbsbench/internal/data_path.h"
#include "verbsbench/internal/fabric.h"
#include "verbsbench/internal/modes.h"
#include "verbsbench/internal/patterns.h"
#include "verbsbench/internal/peer.h"
#include "verbsbench/internal/protocol.h"
#include "verbsbench/timer.h"

namespace verbsbench {
namespace {

using internal::Control;
using internal::Fabric;

internal::FabricConfig FabricConfigFor(const Options& o) {
  internal::FabricConfig cfg;
  cfg.cm = o.cm;
  cfg.ib_dev = o.ib_dev;
  cfg.ib_port = o.ib_port;
  cfg.gid_index = o.gid_index;
  cfg.max_size = *std::max_element(o.sizes.begin(), o.sizes.end());
  cfg.sq_depth = o.sq_depth;
  cfg.rq_depth = o.rq_depth;
  cfg.max_inline = o.max_inline;
  cfg.timeout_s = o.timeout_s;
  cfg.wait = o.wait;
  return cfg;
}

// Peer: connects to the root and serves it; a failure is reported to the
// root before it propagates.
void ServeRoot(Fabric& fabric, const Timer& timer, const Options& o,
               std::ostream& progress) {
  Control control = fabric.ConnectToRoot(o.host, o.port);
  progress << "connected to " << o.host << ":" << o.port << " via "
           << fabric.cm_method() << "\n";
  internal::VerbsPath path(fabric, timer, o);
  internal::Peer<internal::VerbsPath> peer(path, control, timer);
  try {
    peer.Serve();
  } catch (const std::exception& e) {
    try {
      internal::SendMessage(control, internal::Error{e.what()});
    } catch (const std::exception&) {
    }
    throw;
  }
}

// Root: measures the mode's points into `result`.
void Measure(Fabric& fabric, std::vector<Control>& controls, const Timer& timer,
             const Options& o, std::ostream& progress, Result& result) {
  internal::VerbsPath path(fabric, timer, o);
  std::vector<internal::Channel*> peers;
  for (Control& c : controls) peers.push_back(&c);
  internal::Patterns<internal::VerbsPath> patterns(path, peers, timer, o);
  switch (o.mode) {
    case Mode::kLat:
      result.lat = internal::RunLat(patterns, o, progress);
      break;
    case Mode::kBw:
      result.bw = internal::RunBw(patterns, o, progress);
      break;
    case Mode::kLop:
      result.lop = internal::RunLop(patterns, o, progress);
      break;
  }
}

}  // namespace

Result Run(const Options& raw_options, std::ostream& progress) {
  Result result;
  result.options = Normalize(raw_options);
  const Options& o = result.options;
  Timer timer = Timer::Calibrate();
  Fabric fabric(FabricConfigFor(o));
  if (o.is_peer()) {
    ServeRoot(fabric, timer, o, progress);
    result.peer = true;
    result.device = fabric.DeviceJson();
    result.timer = timer.ToJson();
    return result;
  }
  internal::Fd listener = Control::Listen(o.bind, o.port);
  progress << "waiting for " << o.peers << " peer(s) on port " << o.port
           << "\n";
  std::vector<Control> controls;
  fabric.AcceptPeers(listener, o.bind, o.port, o.peers, controls);
  progress << "connected " << o.peers << " peer(s) via " << fabric.cm_method()
           << "\n";
  result.device = fabric.DeviceJson();
  Measure(fabric, controls, timer, o, progress, result);
  // Confidence times the timer during the run too: a second measurement
  // after the run shows whether its overhead drifted.
  timer.RemeasureOverhead(20000);
  result.timer = timer.ToJson();
  for (Control& c : controls) {
    try {
      internal::SendMessage(c, internal::Quit{});
    } catch (const std::exception&) {
    }
  }
  return result;
}

nlohmann::json RunBenchmark(const Options& options, std::ostream& progress) {
  return Run(options, progress).ToJson();
}

}  // namespace verbsbench
