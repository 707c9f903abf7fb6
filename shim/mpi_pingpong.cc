// Test-bed client: an MPI ping-pong between ranks 0 and 1 (MPI_Send and
// MPI_Recv of BYTES), the way osu_latency and NetPIPE time one: the mean
// one-way time over ITERS round trips after WARMUP untimed ones.
//   mpi_pingpong [-n ITERS] [-s BYTES] [--warmup N] [--app-delay NS]
// --app-delay NS makes both ranks busy-wait NS (steady_clock) before each
// send, inside the timed loop: the application's own wait, the control for
// what a test bed adds to any wait (verbsemu sweep --control). Rank 0
// prints
//   mpi_pingpong bytes S iters N mean_us X min_us Y
// and every rank exits 0 on success, 2 on bad arguments.
// MPI's C interface only (Open MPI's and MPICH's C++ bindings are not
// linked).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Options {
  int iters = 2000;
  int warmup = 200;
  int bytes = 8;
  long app_delay_ns = 0;
};

bool ParseInt(const char* text, long lo, long* out) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo) return false;
  *out = v;
  return true;
}

// Parses argv into `o`; false (with a line on stderr) on anything else.
bool Parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    long v = 0;
    const bool ok = i + 1 < argc && ParseInt(argv[i + 1], 0, &v);
    if (a == "-n" && ok && v > 0) {
      o.iters = static_cast<int>(v);
    } else if (a == "-s" && ok && v > 0 && v <= (1 << 26)) {
      o.bytes = static_cast<int>(v);
    } else if (a == "--warmup" && ok) {
      o.warmup = static_cast<int>(v);
    } else if (a == "--app-delay" && ok) {
      o.app_delay_ns = v;
    } else {
      std::fprintf(stderr,
                   "usage: mpi_pingpong [-n ITERS] [-s BYTES] [--warmup N] "
                   "[--app-delay NS] (not '%s')\n",
                   a.c_str());
      return false;
    }
    ++i;
  }
  return true;
}

void AppDelay(const Options& o) {
  if (o.app_delay_ns <= 0) return;
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::nanoseconds(o.app_delay_ns);
  while (std::chrono::steady_clock::now() < end) {
  }
}

// One round trip from rank 0's side (send, then receive the echo) or rank
// 1's (receive, then echo).
void RoundTrip(const Options& o, int rank, std::vector<char>& buf) {
  if (rank == 0) {
    AppDelay(o);
    MPI_Send(buf.data(), o.bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf.data(), o.bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf.data(), o.bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    AppDelay(o);
    MPI_Send(buf.data(), o.bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  const bool parsed = Parse(argc, argv, o);
  if (parsed && size != 2 && rank == 0) {
    std::fprintf(stderr, "mpi_pingpong: needs 2 ranks, has %d\n", size);
  }
  if (!parsed || size != 2) {
    MPI_Finalize();
    return 2;
  }
  std::vector<char> buf(static_cast<size_t>(o.bytes), 'v');
  for (int i = 0; i < o.warmup; ++i) RoundTrip(o, rank, buf);
  double min_us = 1e300;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    RoundTrip(o, rank, buf);
    const std::chrono::duration<double, std::micro> one =
        std::chrono::steady_clock::now() - t0;
    if (one.count() / 2 < min_us) min_us = one.count() / 2;
  }
  const std::chrono::duration<double, std::micro> all =
      std::chrono::steady_clock::now() - start;
  if (rank == 0) {
    std::printf("mpi_pingpong bytes %d iters %d mean_us %.3f min_us %.3f\n",
                o.bytes, o.iters, all.count() / o.iters / 2, min_us);
  }
  MPI_Finalize();
  return 0;
}
