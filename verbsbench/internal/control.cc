#include "verbsbench/internal/control.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace verbsbench::internal {
namespace {

std::string Errno() { return std::strerror(errno); }

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string AddressString(const sockaddr* sa) {
  char host[NI_MAXHOST], port[NI_MAXSERV];
  if (getnameinfo(sa,
                  sa->sa_family == AF_INET6 ? sizeof(sockaddr_in6)
                                            : sizeof(sockaddr_in),
                  host, sizeof(host), port, sizeof(port),
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  return std::string(host) + ":" + port;
}

// Waits until fd is readable; false on timeout.
bool WaitReadable(int fd, double timeout_s) {
  pollfd p{fd, POLLIN, 0};
  const int ms = timeout_s < 0 ? -1 : static_cast<int>(timeout_s * 1000);
  for (;;) {
    const int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error("poll: " + Errno());
    return r > 0;
  }
}

}  // namespace

Fd Control::Listen(const std::string& bind_address, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  const int rc =
      getaddrinfo(bind_address.empty() ? nullptr : bind_address.c_str(),
                  service.c_str(), &hints, &res);
  if (rc != 0) {
    throw std::runtime_error("cannot resolve bind address '" + bind_address +
                             "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, Deleter<freeaddrinfo>> guard(res);
  std::string last_error = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    Fd fd(socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol));
    if (fd.get() < 0) {
      last_error = Errno();
      continue;
    }
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) {
      // Accept IPv4 peers on the IPv6 wildcard too (bindv6only may be set).
      int zero = 0;
      setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    }
    if (bind(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0 &&
        listen(fd.get(), 64) == 0) {
      return fd;
    }
    last_error = Errno();
  }
  throw std::runtime_error("cannot listen on port " + service + ": " +
                           last_error);
}

Control Control::Accept(const Fd& listener, double timeout_s) {
  if (!WaitReadable(listener.get(), timeout_s)) {
    throw std::runtime_error("no peer connected within " +
                             std::to_string(static_cast<int>(timeout_s)) +
                             " s");
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  Fd fd(accept(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len));
  if (fd.get() < 0) throw std::runtime_error("accept: " + Errno());
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return Control(std::move(fd),
                 AddressString(reinterpret_cast<sockaddr*>(&addr)));
}

Control Control::Connect(const std::string& host, uint16_t port,
                         double timeout_s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    throw std::runtime_error("cannot resolve peer '" + host +
                             "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, Deleter<freeaddrinfo>> guard(res);
  const double deadline = Now() + timeout_s;
  std::string last_error;
  for (;;) {
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
      Fd fd(socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol));
      if (fd.get() < 0) {
        last_error = Errno();
        continue;
      }
      if (connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) {
        int one = 1;
        setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return Control(std::move(fd), host + ":" + service);
      }
      last_error = Errno();
    }
    if (Now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("peer " + host + ":" + service +
                           " not reachable: " + last_error);
}

void Control::Send(const nlohmann::json& message) {
  const std::string line = message.dump() + "\n";
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n =
        ::send(fd_.get(), line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("control connection to " + remote_ +
                               " lost: " + Errno());
    off += static_cast<size_t>(n);
  }
}

nlohmann::json Control::Recv(double timeout_s) {
  for (;;) {
    if (std::optional<std::string> line = lines_.Next()) {
      return nlohmann::json::parse(*line);
    }
    if (!WaitReadable(fd_.get(), timeout_s)) {
      throw std::runtime_error("timed out waiting for " + remote_);
    }
    char chunk[65536];
    const ssize_t n = ::recv(fd_.get(), chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw std::runtime_error("control connection to " + remote_ + ": " +
                               Errno());
    if (n == 0)
      throw std::runtime_error(remote_ + " closed the control connection");
    lines_.Append(std::string_view(chunk, static_cast<size_t>(n)), remote_);
  }
}

}  // namespace verbsbench::internal
