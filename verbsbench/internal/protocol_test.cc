#include "verbsbench/internal/protocol.h"

#include <gtest/gtest.h>

#include <thread>

#include "verbsbench/internal/loopback.h"

namespace verbsbench::internal {
namespace {

using nlohmann::json;

TEST(Protocol, CommandsRoundTripThroughTheirEncoding) {
  const Message m{Op::kWrite, 4096, true};
  const Echo echo{m, 77};
  const Command c1 = DecodeCommand(echo.Encode());
  ASSERT_TRUE(std::holds_alternative<Echo>(c1));
  EXPECT_EQ(std::get<Echo>(c1).count, 77u);
  EXPECT_EQ(std::get<Echo>(c1).message.op, Op::kWrite);
  EXPECT_EQ(std::get<Echo>(c1).message.size, 4096u);
  EXPECT_TRUE(std::get<Echo>(c1).message.inl);

  const Initiate init{{m, 10, 3, 5, 2}};
  const Initiate back = std::get<Initiate>(DecodeCommand(init.Encode()));
  EXPECT_EQ(back.count, 10u);
  EXPECT_EQ(back.warmup, 3u);
  EXPECT_EQ(back.cycle, 5u);
  EXPECT_EQ(back.raw_limit, 2u);

  const EchoUd echo_ud{Message{Op::kSend, 8, true}, 31};
  const EchoUd ud = std::get<EchoUd>(DecodeCommand(echo_ud.Encode()));
  EXPECT_EQ(ud.count, 31u);
  EXPECT_EQ(ud.message.op, Op::kSend);
  EXPECT_EQ(ud.message.size, 8u);
  EXPECT_TRUE(ud.message.inl);

  EXPECT_EQ(std::get<Sink>(DecodeCommand(Sink{9}.Encode())).count, 9u);
  const Stream s{Message{Op::kSend, 8, false}, 100, 16, 4, 2, 100};
  const Stream sb = std::get<Stream>(DecodeCommand(s.Encode()));
  EXPECT_EQ(sb.window, 16u);
  EXPECT_EQ(sb.post_list, 4u);
  EXPECT_EQ(sb.cq_mod, 2u);
  EXPECT_EQ(sb.expect_recv, 100u);
  EXPECT_TRUE(std::holds_alternative<Quit>(DecodeCommand(Quit{}.Encode())));

  Train train;
  train.message = Message{Op::kSend, 64, false};
  train.count = 12;
  train.n = 16;
  train.settle_ns = 2500.5;
  const Train tb = std::get<Train>(DecodeCommand(train.Encode()));
  EXPECT_EQ(tb.count, 12u);
  EXPECT_EQ(tb.n, 16u);
  EXPECT_DOUBLE_EQ(tb.settle_ns, 2500.5);
  EXPECT_EQ(tb.message.size, 64u);
}

TEST(Protocol, WireNamesAreStable) {
  EXPECT_EQ(Quit{}.Encode()["type"], "quit");
  EXPECT_EQ(Echo{}.Encode()["type"], "echo");
  EXPECT_EQ(EchoUd{}.Encode()["type"], "echo_ud");
  EXPECT_EQ(Initiate{}.Encode()["type"], "initiate");
  EXPECT_EQ(Sink{}.Encode()["type"], "sink");
  EXPECT_EQ(Stream{}.Encode()["type"], "stream");
  EXPECT_EQ(Train{}.Encode()["type"], "train");
  const Echo read{Message{Op::kRead, 8, false}, 1};
  EXPECT_EQ(read.Encode()["op"], "read");
}

TEST(Protocol, BadCommandsAreRefusedWithAReason) {
  for (const json& bad :
       {json::parse(R"({"type":"dance"})"), json::parse(R"([1,2])"),
        json::parse(R"({"type":"echo","op":"send"})"),
        json::parse(R"({"type":"echo","op":"fly","size":8,"inline":false,
                       "count":1})"),
        json::parse(R"({"type":"sink","count":"many"})"),
        json::parse(R"({"type":"echo_ud","op":"send","size":8,"inline":true})"),
        json::parse(R"({"type":"echo","op":"send","size":0,"inline":false,
                       "count":1})"),
        json::parse(R"({"type":"train","op":"send","size":8,"inline":false,
                       "count":1,"warmup":0,"cycle":1,"raw_limit":0,"n":0,
                       "settle_ns":0})"),
        json::parse(R"({"type":"train","op":"send","size":8,"inline":false,
                       "count":1,"warmup":0,"cycle":1,"raw_limit":0,"n":1,
                       "settle_ns":100})")}) {
    EXPECT_THROW(DecodeCommand(bad), std::runtime_error) << bad.dump();
  }
}

TEST(Protocol, RepliesCarryTheirPayload) {
  Recorder rec(10, 0);
  rec.Add(5);
  rec.Add(7);
  const PeerResult r = PeerResult::Decode(PeerResult{rec}.Encode());
  EXPECT_EQ(r.recorder.count(), 2u);
  EXPECT_DOUBLE_EQ(r.recorder.histogram().min(), rec.histogram().min());
  EXPECT_FALSE(Done::Decode(Done{}.Encode()).elapsed_ns.has_value());
  EXPECT_DOUBLE_EQ(*Done::Decode(Done{12.5}.Encode()).elapsed_ns, 12.5);
}

TEST(Loopback, CarriesMessagesBothWays) {
  auto [a, b] = Loopback::Pair("root", "peer");
  SendMessage(*a, Sink{3});
  EXPECT_EQ(std::get<Sink>(DecodeCommand(b->Recv(1))).count, 3u);
  std::thread t([&] { SendMessage(*b, Done{1.5}); });
  EXPECT_DOUBLE_EQ(*ExpectMessage<Done>(*a, 5).elapsed_ns, 1.5);
  t.join();
  EXPECT_EQ(a->remote(), "peer");
  EXPECT_EQ(b->remote(), "root");
}

TEST(Loopback, TimesOutAndReportsClosure) {
  auto [a, b] = Loopback::Pair();
  EXPECT_THROW(a->Recv(0.01), std::runtime_error);
  b->Close();
  EXPECT_THROW(a->Recv(1), std::runtime_error);
  EXPECT_THROW(a->Send(json::object()), std::runtime_error);
}

TEST(Channel, ExpectTurnsPeerErrorsAndSurprisesIntoExceptions) {
  auto [a, b] = Loopback::Pair("root", "peer7");
  SendMessage(*b, Error{"no device"});
  try {
    ExpectMessage<Ready>(*a, 1);
    ADD_FAILURE() << "error accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "peer peer7: no device");
  }
  SendMessage(*b, Done{});
  EXPECT_THROW(ExpectMessage<Ready>(*a, 1), std::runtime_error);
  b->Send(json::parse(R"({"type":"result","recorder":7})"));
  EXPECT_THROW(ExpectMessage<PeerResult>(*a, 1), std::runtime_error);
}

}  // namespace
}  // namespace verbsbench::internal
