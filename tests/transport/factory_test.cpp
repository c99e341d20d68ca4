// transport/factory: the wire formats by name, the combinations no feed can use, and the one
// factory.
#include "transport/factory.hpp"

#include <gtest/gtest.h>

#include "stats/registry.hpp"
#include "transport/feed_request.hpp"
#include "transport/mtcp/mtcp_sender.hpp"
#include "transport/srt/srt_message_sender.hpp"
#include "transport/srt/srt_sender.hpp"
#include "transport/tcp/tcp_sender.hpp"

namespace hdstream {
namespace {

TEST(Wire, MuxNamesRoundTripAndNothingElseParses) {
  for (Mux mux : {Mux::none, Mux::ts}) EXPECT_EQ(mux_from_string(to_string(mux)), mux);
  using namespace std::string_view_literals;
  for (std::string_view hostile :
       {""sv, "TS"sv, "ts "sv, " ts"sv, "mpegts"sv, "ts\0"sv, "nonee"sv, "n"sv}) {
    EXPECT_FALSE(mux_from_string(hostile)) << "'" << hostile << "'";
  }
}

TEST(Wire, MpegTsTravelsOnlyOverSrt) {
  EXPECT_FALSE(wire_problem(Wire{TransportKind::srt, Mux::ts}));
  for (TransportKind transport : {TransportKind::tcp, TransportKind::mtcp}) {
    EXPECT_EQ(wire_problem(Wire{transport, Mux::ts}), "--mux ts needs --transport srt");
    EXPECT_FALSE(wire_problem(Wire{transport, Mux::none}));
  }
}

TEST(Wire, TheFactoryMakesTheSenderTheWireNames) {
  asio::io_context io;
  StatsRegistry stats(Role::send, 1, "test");
  auto made = [&](TransportKind transport, Mux mux) {
    FeedRequest request;
    request.transport = transport;
    request.destination = Endpoint{"127.0.0.1", 9};
    request.feed = FeedDescriptor{Codec::uyvy, 640, 480, 30000, 1001, 147'000'000};
    return make_sender(Wire{transport, mux}, io.get_executor(), sender_options(request),
                       stats.stream(0));
  };
  EXPECT_TRUE(std::dynamic_pointer_cast<TcpSender>(made(TransportKind::tcp, Mux::none)));
  EXPECT_TRUE(std::dynamic_pointer_cast<MultiTcpSender>(made(TransportKind::mtcp, Mux::none)));
  EXPECT_TRUE(std::dynamic_pointer_cast<SrtSender>(made(TransportKind::srt, Mux::none)));
  EXPECT_TRUE(std::dynamic_pointer_cast<SrtMessageSender>(made(TransportKind::srt, Mux::ts)));
  EXPECT_THROW(made(TransportKind::tcp, Mux::ts), std::invalid_argument);
}

}  // namespace
}  // namespace hdstream
