// GoogleTest fixture for tests that need an RDMA device (rdma-core's
// tests/ find-or-skip): on a machine without an active rxe port every case
// skips with the reason. Such tests are tagged "manual" and "requires-rxe"
// in their BUILD file, so the host's `bazel test //...` leaves them out and
// tests/vm/run runs them inside the Soft-RoCE guest.
#ifndef VERBSEMU_TESTS_RXE_RXE_TEST_H_
#define VERBSEMU_TESTS_RXE_RXE_TEST_H_

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <memory>
#include <string>

namespace verbsemu::testing {

// One end of the test bed's topology (soft-roce/vm's VERBSEMU_VM_* variables).
struct RxeEnd {
  std::string device;   // e.g. rxe0
  int gid_index = 0;    // the RoCE v2 GID that carries `address`
  std::string address;  // IPv4, e.g. 10.99.0.1; empty outside the guest
};

struct ContextCloser {
  void operator()(ibv_context* context) const { ibv_close_device(context); }
};
using Context = std::unique_ptr<ibv_context, ContextCloser>;

// The server end (VERBSEMU_VM_*0) and the client end (VERBSEMU_VM_*1, or the
// server's own in the single topology). Without the guest's variables the
// server is the first device with an active port 1.
class RxeTest : public ::testing::Test {
 protected:
  void SetUp() override;

  const RxeEnd& server() const { return server_; }
  const RxeEnd& client() const { return client_; }
  // Opens END's device; fails the test (returns null) when it cannot.
  Context Open(const RxeEnd& end) const;

 private:
  RxeEnd server_;
  RxeEnd client_;
};

}  // namespace verbsemu::testing

#endif  // VERBSEMU_TESTS_RXE_RXE_TEST_H_
