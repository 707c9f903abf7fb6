#include "verbsbench/internal/loopback.h"

#include <chrono>
#include <stdexcept>

namespace verbsbench::internal {

std::pair<std::unique_ptr<Loopback>, std::unique_ptr<Loopback>> Loopback::Pair(
    const std::string& a, const std::string& b) {
  auto a_to_b = std::make_shared<Queue>();
  auto b_to_a = std::make_shared<Queue>();
  return {std::make_unique<Loopback>(Key{}, b_to_a, a_to_b, b),
          std::make_unique<Loopback>(Key{}, a_to_b, b_to_a, a)};
}

void Loopback::Send(const nlohmann::json& message) {
  std::lock_guard<std::mutex> lock(out_->mu);
  if (out_->closed) throw std::runtime_error(remote_ + " closed the channel");
  out_->lines.push_back(message.dump());
  out_->cv.notify_all();
}

nlohmann::json Loopback::Recv(double timeout_s) {
  std::unique_lock<std::mutex> lock(in_->mu);
  auto ready = [&] { return !in_->lines.empty() || in_->closed; };
  if (timeout_s < 0) {
    in_->cv.wait(lock, ready);
  } else if (!in_->cv.wait_for(lock, std::chrono::duration<double>(timeout_s),
                               ready)) {
    throw std::runtime_error("timed out waiting for " + remote_);
  }
  if (in_->lines.empty()) {
    throw std::runtime_error(remote_ + " closed the control connection");
  }
  const std::string line = std::move(in_->lines.front());
  in_->lines.pop_front();
  return nlohmann::json::parse(line);
}

void Loopback::Close() {
  for (Queue* q : {in_.get(), out_.get()}) {
    std::lock_guard<std::mutex> lock(q->mu);
    q->closed = true;
    q->cv.notify_all();
  }
}

}  // namespace verbsbench::internal
