// Test helper for shim/vm_tests.bats: N rdma_cm connect/disconnect cycles in
// one process over one RDMA device's IPv4 address, with one RC send per
// connection, so that every object the shim tracks (PD, CQ, MR, QP, and the
// cm id they hang off) is made and destroyed N times. Resident memory that
// keeps growing after the warm-up is the shim (or the stack) leaking per
// object.
//   cm_cycles --addr IP [--port P] [--cycles N] [--rss-every K]
// One thread drives both ends: a listener made once, and per cycle a client
// id that resolves, connects, sends 64 bytes to the accepted id and
// disconnects. Port 0 (the default) binds any free port. Prints
// "cycle C rss_kib R" every K cycles (default 1000) and at the end
// "cycles N rss_kib_first R1 rss_kib_last R2 growth_kib G", R1 after the
// first 100 cycles (or all of them, if fewer). Exit 0; on a failure one line
// on stderr and exit 1; bad arguments: one line and exit 2.
#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "shim/cm_events.h"

namespace verbsemu::cm_cycles {
namespace {

constexpr char kUsage[] =
    "cm_cycles --addr IP [--port P] [--cycles N] [--rss-every K]";
constexpr int kResolveTimeoutMs = 2000;
// RSS settles once the allocator's pools and the provider's caches are
// filled; growth is measured from here.
constexpr uint64_t kWarmupCycles = 100;
constexpr size_t kMessageBytes = 64;

// What lives across cycles. Members are destroyed in reverse: the listener
// before the channels, which must have no id left.
struct Rig {
  CmEvents events;
  CmIdPtr listener;
  sockaddr_in addr{};  // the listener's, port included once bound
};

// One end of a connection. Members are destroyed in reverse: the QP, then
// the MR, CQ and PD it used, then the cm id (which must have no QP left).
struct End {
  explicit End(Side s) : side(s) {}
  std::string who() const { return kSideName[side]; }

  Side side;
  std::array<uint8_t, kMessageBytes> buf{};
  CmIdPtr id;
  PdPtr pd;
  CqPtr cq;
  MrPtr mr;
  CmQpPtr qp;
};

bool Listen(Rig& rig, in_addr ip, uint16_t port) {
  if (!rig.events.Open()) return false;
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(rig.events.channel(kServer), &id, nullptr, RDMA_PS_TCP)) {
    return Fail("listener: rdma_create_id");
  }
  rig.listener.reset(id);
  rig.addr.sin_family = AF_INET;
  rig.addr.sin_addr = ip;
  rig.addr.sin_port = htons(port);
  if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&rig.addr))) {
    const int err = errno;
    char text[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &ip, text, sizeof text);
    return Fail(std::string("listener: rdma_bind_addr ") + text, err);
  }
  if (rdma_listen(id, 1)) return Fail("listener: rdma_listen");
  // With port 0 the listener got any free port: the client dials that one.
  rig.addr.sin_port = rdma_get_src_port(id);
  return true;
}

// Per cycle, on the id's own device context: PD, CQ, MR and an RC QP with
// room for the one send or receive, each through the shim's hooks.
bool CreateVerbs(End& end) {
  ibv_context* ctx = end.id->verbs;
  if (ctx == nullptr) return Fail(end.who() + ": cm id has no device", ENODEV);
  end.pd.reset(ibv_alloc_pd(ctx));
  if (!end.pd) return Fail(end.who() + ": ibv_alloc_pd");
  end.cq.reset(ibv_create_cq(ctx, 2, nullptr, nullptr, 0));
  if (!end.cq) return Fail(end.who() + ": ibv_create_cq");
  end.mr.reset(ibv_reg_mr(end.pd.get(), end.buf.data(), end.buf.size(),
                          IBV_ACCESS_LOCAL_WRITE));
  if (!end.mr) return Fail(end.who() + ": ibv_reg_mr");
  ibv_qp_init_attr attr{};
  attr.send_cq = end.cq.get();
  attr.recv_cq = end.cq.get();
  attr.qp_type = IBV_QPT_RC;
  attr.cap.max_send_wr = 1;
  attr.cap.max_recv_wr = 1;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  if (rdma_create_qp(end.id.get(), end.pd.get(), &attr)) {
    return Fail(end.who() + ": rdma_create_qp");
  }
  end.qp.reset(end.id.get());
  return true;
}

ibv_sge BufferSge(const End& end) {
  return {reinterpret_cast<uintptr_t>(end.buf.data()),
          static_cast<uint32_t>(end.buf.size()), end.mr->lkey};
}

bool PostRecv(End& end) {
  ibv_sge sge = BufferSge(end);
  ibv_recv_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int err = ibv_post_recv(end.id->qp, &wr, &bad)) {
    return Fail(end.who() + ": ibv_post_recv", err);
  }
  return true;
}

// The message carries the cycle number, so a stale or misplaced receive
// shows as a mismatch.
void FillMessage(std::array<uint8_t, kMessageBytes>& buf, uint64_t cycle) {
  for (size_t i = 0; i < buf.size(); ++i) {
    buf[i] = static_cast<uint8_t>((cycle >> (8 * (i % 8))) + i);
  }
}

bool PostSend(End& end, uint64_t cycle) {
  FillMessage(end.buf, cycle);
  ibv_sge sge = BufferSge(end);
  ibv_send_wr wr{};
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int err = ibv_post_send(end.id->qp, &wr, &bad)) {
    return Fail(end.who() + ": ibv_post_send", err);
  }
  return true;
}

// Busy-polls `end`'s CQ for one successful completion of opcode `want`.
bool PollOne(End& end, ibv_wc_opcode want, ibv_wc& wc) {
  const std::string what = end.who() + ": polling the CQ";
  const Clock::time_point deadline = Clock::now() + kWaitTimeout;
  for (;;) {
    const int n = ibv_poll_cq(end.cq.get(), 1, &wc);
    if (n < 0)
      return FailWith(what, "ibv_poll_cq returned " + std::to_string(n));
    if (n == 1) break;
    if (Clock::now() > deadline) return Fail(what, ETIMEDOUT);
  }
  if (wc.status != IBV_WC_SUCCESS) {
    return FailWith(what, ibv_wc_status_str(wc.status));
  }
  if (wc.opcode != want) {
    return FailWith(what, "completion opcode " + std::to_string(wc.opcode));
  }
  return true;
}

bool SendOne(End& client, End& server, uint64_t cycle) {
  if (!PostSend(client, cycle)) return false;
  ibv_wc wc{};
  if (!PollOne(client, IBV_WC_SEND, wc) || !PollOne(server, IBV_WC_RECV, wc)) {
    return false;
  }
  std::array<uint8_t, kMessageBytes> want{};
  FillMessage(want, cycle);
  if (wc.byte_len != want.size() || server.buf != want) {
    return FailWith("server: received message", "does not match what was sent");
  }
  return true;
}

rdma_conn_param ConnParam() {
  rdma_conn_param param{};
  param.responder_resources = 1;
  param.initiator_depth = 1;
  param.retry_count = 7;
  param.rnr_retry_count = 7;
  return param;
}

bool ResolveClient(Rig& rig, End& client) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(rig.events.channel(kClient), &id, nullptr, RDMA_PS_TCP)) {
    return Fail("client: rdma_create_id");
  }
  client.id.reset(id);
  CmEvent event;
  if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&rig.addr),
                        kResolveTimeoutMs)) {
    return Fail("client: rdma_resolve_addr");
  }
  if (!rig.events.Next(kClient, RDMA_CM_EVENT_ADDR_RESOLVED, event)) {
    return false;
  }
  if (rdma_resolve_route(id, kResolveTimeoutMs)) {
    return Fail("client: rdma_resolve_route");
  }
  return rig.events.Next(kClient, RDMA_CM_EVENT_ROUTE_RESOLVED, event);
}

bool Connect(Rig& rig, End& client, End& server) {
  if (!ResolveClient(rig, client) || !CreateVerbs(client)) return false;
  rdma_conn_param param = ConnParam();
  if (rdma_connect(client.id.get(), &param)) {
    return Fail("client: rdma_connect");
  }
  CmEvent event;
  if (!rig.events.Next(kServer, RDMA_CM_EVENT_CONNECT_REQUEST, event)) {
    return false;
  }
  server.id.reset(event.id);
  // The receive is up before rdma_accept, so the client's send, posted once
  // both ends are established, always finds one.
  if (!CreateVerbs(server) || !PostRecv(server)) return false;
  if (rdma_accept(server.id.get(), &param)) {
    return Fail("server: rdma_accept");
  }
  // The client first: a rejected or unreachable connection shows there.
  return rig.events.Next(kClient, RDMA_CM_EVENT_ESTABLISHED, event) &&
         rig.events.Next(kServer, RDMA_CM_EVENT_ESTABLISHED, event);
}

// The client's DREQ gets its reply only when the server disconnects too, so
// the server answers before the client waits for its own DISCONNECTED.
bool Disconnect(Rig& rig, End& client, End& server) {
  CmEvent event;
  if (rdma_disconnect(client.id.get())) {
    return Fail("client: rdma_disconnect");
  }
  if (!rig.events.Next(kServer, RDMA_CM_EVENT_DISCONNECTED, event)) {
    return false;
  }
  if (rdma_disconnect(server.id.get())) {
    return Fail("server: rdma_disconnect");
  }
  return rig.events.Next(kClient, RDMA_CM_EVENT_DISCONNECTED, event);
}

// One connection's whole life; its QPs, MRs, CQs, PDs and ids are destroyed
// when `client` and `server` go out of scope, success or not.
bool Cycle(Rig& rig, uint64_t cycle) {
  End client(kClient);
  End server(kServer);
  return Connect(rig, client, server) && SendOne(client, server, cycle) &&
         Disconnect(rig, client, server);
}

// VmRSS of this process in KiB, or -1 if /proc/self/status has none.
long ResidentKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtol(line.c_str() + 6, nullptr, 10);
    }
  }
  return -1;
}

struct Options {
  in_addr addr{};
  uint16_t port = 0;
  uint64_t cycles = 10000;
  uint64_t rss_every = 1000;
};

bool ParseCount(std::string_view text, uint64_t min, uint64_t max,
                uint64_t& out) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= min && out <= max;
}

// Empty when the arguments are good, else what is wrong with them.
std::string ParseArgs(int argc, char** argv, Options& opt) {
  bool have_addr = false;
  uint64_t port = 0;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag != "--addr" && flag != "--port" && flag != "--cycles" &&
        flag != "--rss-every") {
      return "unknown argument '" + flag + "'";
    }
    if (i + 1 >= argc) return "missing value after " + flag;
    const std::string_view value = argv[i + 1];
    if (flag == "--addr") {
      have_addr = inet_pton(AF_INET, argv[i + 1], &opt.addr) == 1;
      if (!have_addr) return "--addr wants an IPv4 address";
    } else if (flag == "--port") {
      if (!ParseCount(value, 0, 65535, port)) return "--port wants 0-65535";
      opt.port = static_cast<uint16_t>(port);
    } else if (flag == "--cycles") {
      if (!ParseCount(value, 1, UINT64_MAX, opt.cycles)) {
        return "--cycles wants a positive count";
      }
    } else if (!ParseCount(value, 1, UINT64_MAX, opt.rss_every)) {
      return "--rss-every wants a positive count";
    }
  }
  return have_addr ? "" : "--addr is required";
}

bool Run(const Options& opt) {
  Rig rig;
  if (!Listen(rig, opt.addr, opt.port)) return false;
  const uint64_t warmup = std::min(kWarmupCycles, opt.cycles);
  long first = -1;
  long last = -1;
  for (uint64_t c = 1; c <= opt.cycles; ++c) {
    current_cycle = c;
    if (!Cycle(rig, c)) return false;
    const bool report = c % opt.rss_every == 0;
    if (!report && c != warmup && c != opt.cycles) continue;
    last = ResidentKib();
    if (last < 0) return FailWith("/proc/self/status", "no VmRSS line");
    if (c == warmup) first = last;
    if (report) {
      std::printf("cycle %llu rss_kib %ld\n",
                  static_cast<unsigned long long>(c), last);
      std::fflush(stdout);
    }
  }
  std::printf("cycles %llu rss_kib_first %ld rss_kib_last %ld growth_kib %ld\n",
              static_cast<unsigned long long>(opt.cycles), first, last,
              last - first);
  return true;
}

}  // namespace

int Main(int argc, char** argv) {
  Options opt;
  const std::string bad = ParseArgs(argc, argv, opt);
  if (!bad.empty()) {
    std::fprintf(stderr, "cm_cycles: %s; usage: %s\n", bad.c_str(), kUsage);
    return 2;
  }
  return Run(opt) ? 0 : 1;
}

}  // namespace verbsemu::cm_cycles

int main(int argc, char** argv) {
  return verbsemu::cm_cycles::Main(argc, argv);
}
