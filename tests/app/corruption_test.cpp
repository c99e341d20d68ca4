// A byte flipped in flight (by a proxy between sender and receiver) is caught by the per-chunk
// XXH3-64: counted as a checksum error and a dropped frame, never delivered, never a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/asio.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// Forwards one TCP connection to `upstream`, flipping the byte at `flip_offset` of the
// client-to-server direction.
class CorruptingProxy {
 public:
  CorruptingProxy(std::uint16_t upstream, std::uint64_t flip_offset)
      : acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        upstream_port_(upstream),
        flip_offset_(flip_offset) {
    thread_ = std::jthread([this] { serve(); });
  }
  ~CorruptingProxy() {
    error_code ignored;
    acceptor_.close(ignored);
    client_.close(ignored);
    server_.close(ignored);
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  bool flipped() const { return flipped_; }

 private:
  void serve() {
    error_code ec;
    acceptor_.accept(client_, ec);
    if (ec) return;
    server_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), upstream_port_), ec);
    if (ec) return;
    std::jthread back([this] { pump(server_, client_, false); });
    pump(client_, server_, true);
  }

  void pump(tcp::socket& from, tcp::socket& to, bool corrupt) {
    std::array<std::byte, 64 * 1024> buffer;
    std::uint64_t position = 0;
    for (;;) {
      error_code ec;
      const std::size_t n = from.read_some(asio::buffer(buffer), ec);
      if (ec) break;
      if (corrupt && !flipped_ && flip_offset_ >= position && flip_offset_ < position + n) {
        buffer[flip_offset_ - position] ^= std::byte{0x40};
        flipped_ = true;
      }
      position += n;
      asio::write(to, asio::buffer(buffer.data(), n), ec);
      if (ec) break;
    }
    error_code ignored;
    to.shutdown(tcp::socket::shutdown_send, ignored);
  }

  asio::io_context io_;
  tcp::acceptor acceptor_;
  tcp::socket client_{io_};
  tcp::socket server_{io_};
  std::uint16_t upstream_port_;
  std::uint64_t flip_offset_;
  std::atomic<bool> flipped_{false};
  std::jthread thread_;
};

TEST(Corruption, FlippedByteIsCountedAsAChecksumErrorAndADrop) {
  auto dir = test::scratch_dir("corruption");
  const int receiver_port = test::free_port();
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + std::to_string(receiver_port),
       "--streams", "1", "--stats", "json", "--duration", "30s"},
      dir, "recv");
  // The proxy connects upstream once, at once: the receiver must be listening by then.
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  // Byte 100,000 lies in the payload of the first frame's second 64 KiB chunk.
  CorruptingProxy proxy(static_cast<std::uint16_t>(receiver_port), 100'000);
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:" + std::to_string(proxy.port()), "--streams",
       "1", "--rate", "50M", "--duration", "2s", "--stats", "json"},
      dir, "send");
  // The sender's own bytes all left intact, but its verdict is end to end: the receiver's
  // report of the bad chunk fails it too.
  ASSERT_EQ(send.wait(30s), 3) << send.err();
  const auto recv_code = recv.wait(30s);
  EXPECT_TRUE(proxy.flipped());

  auto sent = test::find_line(send.out(), "summary");
  auto received = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(sent && received) << recv.out();
  EXPECT_EQ((*received)["checksum_errors"], 1);
  EXPECT_EQ((*received)["drops"], 1);
  EXPECT_EQ((*received)["frames"].get<int>(), (*sent)["frames"].get<int>() - 1);
  EXPECT_EQ((*received)["verdict"], "fail");
  EXPECT_EQ(recv_code, 3);  // ran, but the verdict failed
  EXPECT_EQ((*sent)["checksum_errors"], 0);
  EXPECT_EQ((*sent)["verdict"], "fail");
  auto far_end = test::find_line(send.out(), "far_end");
  ASSERT_TRUE(far_end) << send.out();
  EXPECT_EQ((*far_end)["checksum_errors"], 1);
  EXPECT_EQ((*far_end)["drops"], 1);
  // FEEDBACK extension 1: the corrupted frame is one loss event of one frame, missing, not late.
  EXPECT_EQ((*far_end)["extended"], true);
  EXPECT_EQ((*far_end)["loss_events"], 1);
  EXPECT_EQ((*far_end)["longest_loss_run"], 1);
  EXPECT_EQ((*far_end)["late_frames"], 0);
  EXPECT_EQ((*far_end)["duplicate_chunks"], 0);
  EXPECT_EQ((*far_end)["out_of_order_chunks"], 0);
  EXPECT_NE(recv.err().find("failed XXH3 verification"), std::string::npos) << recv.err();
}

}  // namespace
}  // namespace hdstream
