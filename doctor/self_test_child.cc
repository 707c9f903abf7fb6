// The self-test's child: libibverbs reached only as NCCL reaches it
// (nccl_style.h): a private dlopen, every verb taken with dlvsym from that
// handle, posts and polls through qp->context->ops. One RC QP connected to
// itself (its own QPN, a GID of port 1, or its LID on InfiniBand), one
// receive and one signaled send, both completions polled for at most 5 s.
#include <infiniband/verbs.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "doctor/self_test.h"
#include "nccl_style/nccl_style.h"

namespace verbsemu::doctor {
namespace {

using nccl_style::RcEndpoint;
using nccl_style::Verbs;

bool Fail(const std::string& why) {
  std::fprintf(stderr, "verbsemu doctor: self-test child: %s\n", why.c_str());
  return false;
}

bool IsIpv4Mapped(const ibv_gid& g) {
  static const uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(g.raw, kPrefix, sizeof(kPrefix)) == 0;
}

// The port's GID to reach itself by: one carrying an IPv4 address (RoCE v2
// over IPv4, as the test bed uses) when there is one, else the first
// non-zero one; -1 when none.
int PickGid(const Verbs& v, ibv_context* ctx, int table_len, ibv_gid& out) {
  int first = -1;
  for (int i = 0; i < table_len && i < 256; ++i) {
    ibv_gid gid{};
    if (v.query_gid(ctx, 1, i, &gid) != 0 || gid.global.interface_id == 0) {
      continue;
    }
    if (first < 0 || IsIpv4Mapped(gid)) {
      first = i;
      out = gid;
    }
    if (IsIpv4Mapped(gid)) break;
  }
  return first;
}

// The address of port 1 itself: its LID on InfiniBand, else a GID.
bool SelfAddress(const Verbs& v, const std::string& device, ibv_context* ctx,
                 ibv_ah_attr& ah) {
  ibv_port_attr port{};
  if (v.query_port(ctx, 1, &port) != 0) return Fail("cannot query port 1");
  std::ifstream ll("/sys/class/infiniband/" + device + "/ports/1/link_layer");
  std::string layer;
  ll >> layer;
  ah = {};
  ah.port_num = 1;
  if (layer == "InfiniBand") {
    ah.dlid = port.lid;
    return true;
  }
  ibv_gid gid{};
  const int index = PickGid(v, ctx, port.gid_tbl_len, gid);
  if (index < 0) return Fail("port 1 has no valid GID");
  ah.is_global = 1;
  ah.grh.dgid = gid;
  ah.grh.sgid_index = static_cast<uint8_t>(index);
  ah.grh.hop_limit = 1;
  return true;
}

// One receive and one signaled send of a known text to itself; both
// completions, and the text arrived unchanged.
bool SendToItself(RcEndpoint& e) {
  std::string why;
  if (!e.PostRecv()) return Fail("cannot post the receive");
  std::strcpy(e.sent(), "verbsemu doctor");
  if (!e.PostSend()) return Fail("cannot post the send");
  if (!e.Reap(2, 5, &why)) return Fail(why);
  return std::strcmp(e.received(), e.sent()) == 0 ||
         Fail("the message arrived changed");
}

}  // namespace

int RunSelfTestChild(const std::string& device) {
  Verbs v{};
  std::string why;
  ibv_ah_attr self{};
  if (!nccl_style::Load(v, nccl_style::Namespace::kUsual, &why)) {
    Fail(why);
    return 1;
  }
  RcEndpoint e(v);
  const bool ok = (e.Open(device, 64, 1, &why) || Fail(why)) &&
                  SelfAddress(v, device, e.context(), self) &&
                  (e.Connect(e.qp()->qp_num, self, &why) || Fail(why)) &&
                  SendToItself(e);
  return ok ? 0 : 1;
}

}  // namespace verbsemu::doctor
