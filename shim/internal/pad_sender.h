// Shim-owned padding path of one (context, port): the shim's own context on
// the device (so its QP, doorbell registers and async events stay apart from
// the application's), PD, CQ, UD QP and one registered datagram buffer. Made
// at RTR, outside the data path and any provider lock. Padding goes to a QPN
// that cannot exist on the peer, so the receiver's device drops it after it
// crossed the wire (InterSense §3).
#ifndef VERBSEMU_SHIM_INTERNAL_PAD_SENDER_H_
#define VERBSEMU_SHIM_INTERNAL_PAD_SENDER_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "shim/internal/verbs_ptr.h"

namespace verbsemu::shim::internal {

struct ContextState;
struct PortLink;
struct QpState;

class PadSender {
 public:
  static std::unique_ptr<PadSender> Create(ibv_device* device, std::string name,
                                           uint8_t port, uint32_t mtu_bytes);
  PadSender(std::string name, uint8_t port, uint32_t mtu)
      : name_(std::move(name)), port_(port), mtu_(mtu), buf_(mtu, 0) {}
  ~PadSender();

  AhPtr CreateAh(const ibv_ah_attr& av);
  // Posts `datagrams` padding datagrams; returns how many went out.
  uint64_t Send(ibv_ah* ah, uint64_t datagrams);
  // The device is being torn down underneath us: forget the handles.
  void Abandon();
  uint32_t datagram_bytes() const { return mtu_; }

 private:
  bool Bringup(ibv_device* device);
  bool Reap(bool block);
  void Drain();

  std::string name_;  // the device's, for warnings
  uint8_t port_;
  uint32_t mtu_;
  std::vector<char> buf_;
  // Destroyed in reverse order: QP, CQ, MR, PD, then the context.
  ContextPtr ctx_;
  PdPtr pd_;
  MrPtr mr_;
  CqPtr cq_;
  QpPtr qp_;
  std::mutex mu_;
  int outstanding_ = 0;
  bool failed_ = false;
};

// At RTR, in pad mode: the link's padding path and `q`'s address handle on
// it, unless they exist (or failed, which is reported once).
void PreparePadding(QpState* q, PortLink* link);
// Sends the padding that `pad_bytes` of application data owe on `q`'s link.
void SendPadding(QpState* q, PortLink* link, uint64_t pad_bytes);

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_PAD_SENDER_H_
