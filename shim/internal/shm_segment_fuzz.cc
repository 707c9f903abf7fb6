// Fuzzes what a shim process finds in a shared segment (a bug, a stale
// VERBSEMU_SHM_DIR file, another build, a hostile process of the same
// user): the input's bytes are the file of a port's link (SharedLink) or
// of its posted-packet counts (SharedPortCounts), either raw (any size,
// any tag) or behind the right tag at the right size. The shim must map it
// or refuse it with a reason, never crash; mapped, a link's schedules
// (pace and gap) release every post no later than the bound on what may be
// booked ahead plus the post's own time, and the counts give a verdict and
// a report line.
//
// Input: byte 0 picks the segment (bit 0) and raw or tagged (bit 1); then
// the file's bytes; a tagged file's words after its size drive the posts.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "emulate/gap_clock.h"
#include "emulate/pacer.h"
#include "shim/internal/port_link.h"
#include "shim/internal/port_traffic.h"
#include "shim/internal/segment_key.h"
#include "shim/internal/shm_segment.h"

namespace {

using verbsemu::shim::internal::TrafficPaths;

// A directory of this process's own (segments as files, VERBSEMU_SHM_DIR).
const TrafficPaths& Paths() {
  static const TrafficPaths paths = [] {
    TrafficPaths p;
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") +
                      "/verbsemu-shm-fuzz-XXXXXX";
    if (mkdtemp(dir.data()) == nullptr) std::abort();
    static std::string made;
    made = dir;
    std::atexit([] { std::filesystem::remove_all(made); });
    p.shm_dir = dir;
    p.shm_prefix = "/fuzz";
    p.sysfs_root = dir + "/no-sysfs";
    p.net_root = dir + "/no-net";
    return p;
  }();
  return paths;
}

// Writes `bytes` as the file `name` of the segment directory, mode 0600.
void WriteSegment(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = Paths().shm_dir + name;
  unlink(path.c_str());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  close(fd);
}

// The file: raw, or the tag then the input, cut or zero-padded to `size`.
std::vector<uint8_t> FileOf(const uint8_t* data, size_t n, bool tagged,
                            uint64_t tag, size_t size) {
  if (!tagged) return {data, data + n};
  std::vector<uint8_t> file(size, 0);
  std::memcpy(file.data(), &tag, sizeof tag);
  std::memcpy(file.data() + sizeof tag, data, std::min(n, size - sizeof tag));
  return file;
}

uint64_t WordAt(const uint8_t* data, size_t n, size_t i) {
  uint64_t w = 0;
  const size_t at = i * sizeof w;
  if (at < n) std::memcpy(&w, data + at, std::min(sizeof w, n - at));
  return w;
}

// A link's schedules as the shim uses them (port_link.cc, data_path.cc),
// 1 s booked ahead at most at a 3 GHz TSC, 1 Gbit/s over 100 Gbit/s.
void UseLink(verbsemu::shim::internal::SharedLink& link, const uint8_t* data,
             size_t n) {
  namespace em = verbsemu::emulate;
  constexpr uint64_t kMaxAhead = 3'000'000'000;
  constexpr double kTarget = 1e9 / 8 / 3e9, kReal = 100e9 / 8 / 3e9;
  uint64_t now = WordAt(data, n, 0) >> 2;
  std::atomic<uint64_t> resets{0};
  em::Pacer out(kTarget, kReal, 60'000, link.out, now, kMaxAhead, &resets);
  em::Pacer in(kTarget, kReal, 60'000, link.in, now, kMaxAhead, &resets);
  for (size_t i = 1; i < 17; ++i) {
    const uint64_t w = WordAt(data, n, i);
    now += (w & 0xffff);
    const uint64_t bytes = (w >> 16) & 0xfffff;
    const double own = static_cast<double>(bytes) / kTarget;
    for (em::Pacer* p : {&out, &in}) {
      const uint64_t release = p->Reserve(now, bytes);
      if (release < now ||
          static_cast<double>(release - now) > 2.0 * kMaxAhead + own + 2) {
        std::abort();
      }
    }
    const uint64_t gap = em::ReserveGap(link.gap_next, now, 3000, 0, kMaxAhead);
    if (gap < now || gap - now > kMaxAhead) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace verbsemu::shim::internal;
  if (size == 0) return 0;
  const bool link = (data[0] & 1) != 0, tagged = (data[0] & 2) != 0;
  ++data, --size;
  const TrafficPaths& paths = Paths();
  std::string why;
  if (link) {
    const std::string name = LinkSegmentName(paths, "fuzz0", 1);
    WriteSegment(
        name, FileOf(data, size, tagged, SharedLink::kTag, sizeof(SharedLink)));
    auto mapped = MapShared<SharedLink>(paths.shm_dir, name, &why);
    if (mapped == nullptr && why.empty()) std::abort();
    if (mapped != nullptr && mapped->tag.load() != SharedLink::kTag) {
      std::abort();
    }
    if (mapped != nullptr) UseLink(*mapped, data, size);
    return 0;
  }
  const std::string name = SegmentName(paths, "fuzz0", 1);
  WriteSegment(name, FileOf(data, size, tagged, SharedPortCounts::kTag,
                            sizeof(SharedPortCounts)));
  auto traffic = PortTraffic::Start(paths, "fuzz0", 1, &why);
  if (traffic == nullptr && why.empty()) std::abort();
  if (traffic == nullptr) return 0;
  if (traffic->shared()->tag.load() != SharedPortCounts::kTag) std::abort();
  traffic->ServeReads(true);
  traffic->shared()->posted_packets.fetch_add(WordAt(data, size, 0));
  const TrafficVerdict v = Judge(traffic->Window());
  if (v.bypass && v.unexplained == 0) std::abort();
  if (traffic->ReportLine().empty()) std::abort();
  traffic->ServeReads(false);
  return 0;
}
