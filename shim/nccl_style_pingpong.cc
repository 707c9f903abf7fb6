// Test-bed client written the way NCCL's ibvsymbols.cc/ibvwrap.h use
// libibverbs: the library is dlopen()ed privately (RTLD_LOCAL), every verb
// is taken with dlvsym() from that handle, and posts and polls go through
// qp->context->ops. The program itself never links libibverbs, so the shim
// can see it only through libibverbs' own calls (verbs_open_device on
// Debian's build) or the provider's (verbs_set_ops on a -Bsymbolic build).
// An RC send/receive ping-pong over a TCP exchange of QP numbers and GIDs:
//   nccl_style_pingpong -d DEV -x GID_INDEX -p PORT [-n ITERS] [-s BYTES]
//                       [--hide] [--app-delay NS] [SERVER_ADDRESS]
// Without SERVER_ADDRESS it serves one client. --hide runs the ping-pong
// through a second libibverbs loaded in a link namespace of its own
// (dlmopen), which no preload reaches, while the device is also opened
// through the usual one: a QP the shim cannot see beside a context it sees.
// --app-delay NS makes both ends busy-wait NS (steady_clock) before each
// send, inside the timed loop, as the shim's spin does: a control whose
// answer is known (one way grows by NS), to tell what a test bed adds to
// any wait from what the shim's waits add.
// The client prints
//   device DEV iters N bytes S t_min_us X t_median_us Y
// one-way latencies (half the round trip), and both ends exit 0 on success.
#include <infiniband/verbs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "nccl_style/nccl_style.h"

namespace {

using verbsemu::nccl_style::Namespace;
using verbsemu::nccl_style::RcEndpoint;
using verbsemu::nccl_style::Verbs;

// The out-of-band TCP exchange: the server accepts one client.
class OobSocket {
 public:
  OobSocket() = default;
  OobSocket(const OobSocket&) = delete;
  OobSocket& operator=(const OobSocket&) = delete;
  ~OobSocket() {
    if (fd_ >= 0) close(fd_);
  }
  // Serves on `port` when `host` is empty, else connects to it (retrying for
  // 30 s while the server is not listening yet).
  bool Open(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = host.empty() ? AI_PASSIVE : 0;
    addrinfo* ai = nullptr;
    const std::string service = std::to_string(port);
    if (getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(),
                    &hints, &ai) != 0) {
      return false;
    }
    const bool ok = host.empty() ? Accept(ai) : ConnectRetrying(ai);
    freeaddrinfo(ai);
    return ok;
  }
  bool Exchange(const void* mine, void* theirs, size_t n) {
    return write(fd_, mine, n) == static_cast<ssize_t>(n) && ReadAll(theirs, n);
  }
  bool Barrier() {
    char mine = 'b', theirs = 0;
    return Exchange(&mine, &theirs, 1) && theirs == 'b';
  }

 private:
  bool Accept(const addrinfo* ai) {
    const int l = socket(ai->ai_family, ai->ai_socktype, 0);
    const int one = 1;
    const bool ok =
        l >= 0 &&
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
        bind(l, ai->ai_addr, ai->ai_addrlen) == 0 && listen(l, 1) == 0;
    if (ok) fd_ = accept(l, nullptr, nullptr);
    if (l >= 0) close(l);
    return fd_ >= 0;
  }
  bool ConnectRetrying(const addrinfo* ai) {
    for (int i = 0; i < 300; ++i) {
      fd_ = socket(ai->ai_family, ai->ai_socktype, 0);
      if (fd_ >= 0 && connect(fd_, ai->ai_addr, ai->ai_addrlen) == 0) {
        return true;
      }
      if (fd_ >= 0) close(fd_);
      fd_ = -1;
      usleep(100'000);
    }
    return false;
  }
  bool ReadAll(void* p, size_t n) {
    auto* c = static_cast<char*>(p);
    while (n > 0) {
      const ssize_t k = read(fd_, c, n);
      if (k <= 0) return false;
      c += k;
      n -= static_cast<size_t>(k);
    }
    return true;
  }
  int fd_ = -1;
};

struct Options {
  std::string device;
  int gid_index = 0;
  int port = 18515;
  int iters = 1000;
  int bytes = 8;
  std::string server;  // empty: serve
  bool hide = false;
  long app_delay_ns = 0;  // --app-delay
};

// The application's own wait before a send (--app-delay).
void AppDelay(const Options& o) {
  if (o.app_delay_ns <= 0) return;
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::nanoseconds(o.app_delay_ns);
  while (std::chrono::steady_clock::now() < end) {
  }
}

bool Parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "-d" && has_value) {
      o.device = argv[++i];
    } else if (a == "-x" && has_value) {
      o.gid_index = std::atoi(argv[++i]);
    } else if (a == "-p" && has_value) {
      o.port = std::atoi(argv[++i]);
    } else if (a == "-n" && has_value) {
      o.iters = std::atoi(argv[++i]);
    } else if (a == "-s" && has_value) {
      o.bytes = std::atoi(argv[++i]);
    } else if (a == "--app-delay" && has_value) {
      o.app_delay_ns = std::atol(argv[++i]);
    } else if (a == "--hide") {
      o.hide = true;
    } else if (!a.empty() && a[0] != '-' && o.server.empty()) {
      o.server = a;
    } else {
      return false;
    }
  }
  return !o.device.empty() && o.iters > 0 && o.bytes > 0 && o.port > 0;
}

// What each end tells the other.
struct Endpoint {
  uint32_t qpn;
  ibv_gid gid;
};

// The client's timed loop: send, then wait for the echo and our own send's
// completion; returns one-way latencies in µs.
bool Run(RcEndpoint& e, const Options& o, std::vector<double>* one_way,
         std::string* why) {
  for (int i = 0; i < o.iters; ++i) {
    if (!e.PostRecv()) return false;
    const auto t0 = std::chrono::steady_clock::now();
    AppDelay(o);
    if (!e.PostSend() || !e.Reap(2, 10, why)) return false;
    const auto t1 = std::chrono::steady_clock::now();
    one_way->push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
  }
  return true;
}

bool Serve(RcEndpoint& e, const Options& o, std::string* why) {
  for (int i = 0; i < o.iters; ++i) {
    if (!e.Reap(1, 10, why) || !e.PostRecv()) return false;
    AppDelay(o);
    if (!e.PostSend() || !e.Reap(1, 10, why)) {
      return false;
    }
  }
  return true;
}

// The peer's address: its GID at our GID index's place, port 1.
ibv_ah_attr PeerAddress(const Options& o, const Endpoint& peer) {
  ibv_ah_attr ah{};
  ah.is_global = 1;
  ah.grh.dgid = peer.gid;
  ah.grh.sgid_index = static_cast<uint8_t>(o.gid_index);
  ah.grh.hop_limit = 1;
  ah.port_num = 1;
  return ah;
}

int Fail(const std::string& why) {
  std::fprintf(stderr, "nccl_style_pingpong: %s\n", why.c_str());
  return 1;
}

// The ping-pong over a connected endpoint; the client prints its figures.
int PingPong(RcEndpoint& e, const Options& o, OobSocket& sock) {
  std::string why;
  if (o.server.empty()) {
    return Serve(e, o, &why) && sock.Barrier() ? 0 : Fail("serving: " + why);
  }
  std::vector<double> one_way;
  if (!Run(e, o, &one_way, &why) || !sock.Barrier()) {
    return Fail("ping-pong: " + why);
  }
  std::sort(one_way.begin(), one_way.end());
  std::printf("device %s iters %d bytes %d t_min_us %.3f t_median_us %.3f\n",
              o.device.c_str(), o.iters, o.bytes, one_way.front(),
              one_way[one_way.size() / 2]);
  return 0;
}

int Main(const Options& o) {
  std::string why;
  // --hide: the device also open through the usual libibverbs, the one a
  // preload sees, while the QP lives in a libibverbs of its own.
  Verbs visible{};
  ibv_context* seen = nullptr;
  if (o.hide &&
      (!verbsemu::nccl_style::Load(visible, Namespace::kUsual, &why) ||
       (seen = verbsemu::nccl_style::OpenByName(visible, o.device)) ==
           nullptr)) {
    return Fail("cannot open " + o.device + " through the usual libibverbs " +
                why);
  }
  Verbs v{};
  if (!verbsemu::nccl_style::Load(
          v, o.hide ? Namespace::kOwn : Namespace::kUsual, &why)) {
    return Fail(why);
  }
  RcEndpoint e(v);
  if (!e.Open(o.device, static_cast<size_t>(o.bytes), 4, &why))
    return Fail(why);
  Endpoint me{e.qp()->qp_num, {}};
  if (v.query_gid(e.context(), 1, o.gid_index, &me.gid) != 0) {
    return Fail("cannot read GID " + std::to_string(o.gid_index));
  }
  OobSocket sock;
  Endpoint peer{};
  if (!sock.Open(o.server, o.port) || !sock.Exchange(&me, &peer, sizeof(me))) {
    return Fail("TCP exchange failed on port " + std::to_string(o.port));
  }
  // The server's first receive is posted before the client may send.
  if (!e.Connect(peer.qpn, PeerAddress(o, peer), &why) ||
      (o.server.empty() && !e.PostRecv()) || !sock.Barrier()) {
    return Fail("cannot connect the QP " + why);
  }
  const int rc = PingPong(e, o, sock);
  if (seen != nullptr) visible.close_device(seen);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: nccl_style_pingpong -d DEV -x GID_INDEX -p PORT "
                 "[-n ITERS] [-s BYTES] [--hide] [SERVER_ADDRESS]\n");
    return 2;
  }
  return Main(o);
}
