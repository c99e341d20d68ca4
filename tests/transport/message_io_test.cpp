// MessageReader over a real loopback TCP connection: payloads land in their slots, the header
// behind a payload comes in the same read, and a stream cut or corrupted anywhere is an error.
#include "transport/message_io.hpp"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "protocol/frame.hpp"
#include "protocol/packetizer.hpp"

namespace hdstream {
namespace {

std::vector<std::byte> counting_frame(std::uint64_t seq, std::size_t bytes) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>(i * 7 + seq);
  return data;
}

class MessageReaderTest : public ::testing::Test {
 protected:
  MessageReaderTest() : reader_socket_(io_), writer_socket_(io_) {
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    writer_socket_.connect(acceptor.local_endpoint());
    acceptor.accept(reader_socket_);
  }

  // The chunks of one frame of `bytes` counting bytes, as they go on the wire.
  static std::vector<std::byte> wire_frame(std::uint64_t seq, std::size_t bytes,
                                           std::uint32_t chunk_bytes) {
    Frame frame;
    frame.seq = seq;
    frame.data = counting_frame(seq, bytes);
    std::vector<EncodedChunk> chunks;
    packetize(frame, chunk_bytes, chunks);
    std::vector<std::byte> wire;
    for (const auto& chunk : chunks) {
      wire.insert(wire.end(), chunk.header.begin(), chunk.header.end());
      wire.insert(wire.end(), chunk.payload.begin(), chunk.payload.end());
    }
    return wire;
  }

  void write(std::span<const std::byte> bytes) {
    asio::write(writer_socket_, asio::buffer(bytes.data(), bytes.size()));
  }

  template <typename T>
  T run(awaitable<T> task) {
    auto future = asio::co_spawn(io_, std::move(task), asio::use_future);
    io_.restart();
    io_.run();
    return future.get();
  }

  // Reads chunk messages until `frames` frames are whole; returns their bytes in order.
  awaitable<std::vector<std::vector<std::byte>>> read_frames(int frames) {
    std::vector<std::vector<std::byte>> out;
    for (bool whole = false; !whole;) {
      auto read = co_await reader_.read_header(reader_socket_);
      if (read.error) throw boost::system::system_error(read.error);
      const MessageHeader& h = read.header;
      if (h.chunk_index == 0) out.emplace_back(h.frame_bytes);
      auto slot = std::span(out.back()).subspan(h.payload_offset, h.payload_bytes);
      const auto ec = co_await reader_.read_payload(reader_socket_, slot);
      if (ec) throw boost::system::system_error(ec);
      whole = static_cast<int>(out.size()) == frames && h.chunk_index + 1 == h.chunk_count;
    }
    co_return out;
  }

  asio::io_context io_;
  tcp::socket reader_socket_;
  tcp::socket writer_socket_;
  MessageReader reader_;
};

TEST_F(MessageReaderTest, PayloadsLandInTheirSlotsWhateverTheWritePattern) {
  std::vector<std::byte> wire;
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    auto frame = wire_frame(seq, 100'000 + seq, 16 * 1024);
    wire.insert(wire.end(), frame.begin(), frame.end());
  }
  // Cut at awkward places: inside a header, one byte after a header, mid payload.
  std::thread writer([&] {
    std::size_t at = 0;
    for (std::size_t piece : {1ul, 47ul, 1ul, 30ul, 16'400ul, 3ul}) {
      write(std::span(wire).subspan(at, piece));
      at += piece;
    }
    write(std::span(wire).subspan(at));
  });
  auto frames = run(read_frames(3));
  writer.join();
  ASSERT_EQ(frames.size(), 3u);
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    EXPECT_EQ(frames[seq], counting_frame(seq, 100'000 + seq)) << seq;
  }
}

TEST_F(MessageReaderTest, TheHeaderBehindAPayloadComesInTheSameRead) {
  auto wire = wire_frame(0, 3 * 1024, 1024);  // three chunks, all queued before reading
  write(wire);
  run([&]() -> awaitable<void> {
    for (int chunk = 0; chunk < 3; ++chunk) {
      auto read = co_await reader_.read_header(reader_socket_);
      EXPECT_FALSE(read.error);
      EXPECT_EQ(read.header.chunk_index, chunk);
      std::vector<std::byte> slot(read.header.payload_bytes);
      EXPECT_FALSE(co_await reader_.read_payload(reader_socket_, slot));
      // The next header was staged by the payload's read; after the last chunk nothing is left.
      EXPECT_EQ(reader_.staged_bytes(), chunk < 2 ? kHeaderBytes : 0u);
    }
  }());
}

TEST_F(MessageReaderTest, GarbageAfterAPayloadIsAProtocolError) {
  auto wire = wire_frame(0, 2048, 1024);
  wire.resize(kHeaderBytes + 1024);  // the first chunk only
  std::vector<std::byte> garbage(kHeaderBytes, std::byte{0x5a});
  wire.insert(wire.end(), garbage.begin(), garbage.end());
  write(wire);
  auto result = run([&]() -> awaitable<HeaderRead> {
    auto first = co_await reader_.read_header(reader_socket_);
    std::vector<std::byte> slot(first.header.payload_bytes);
    co_await reader_.read_payload(reader_socket_, slot);
    co_return co_await reader_.read_header(reader_socket_);
  }());
  EXPECT_EQ(result.error, boost::system::errc::protocol_error);
  EXPECT_EQ(result.detail, HeaderError::bad_magic);
}

TEST_F(MessageReaderTest, AStreamCutMidPayloadOrMidHeaderIsAnError) {
  auto wire = wire_frame(0, 4096, 1024);
  // Payload of chunk 0, then 20 bytes of chunk 1's header, then EOF.
  wire.resize(kHeaderBytes + 1024 + 20);
  write(wire);
  writer_socket_.shutdown(tcp::socket::shutdown_send);
  auto [payload_ec, header_ec] = run([&]() -> awaitable<std::pair<error_code, error_code>> {
    auto first = co_await reader_.read_header(reader_socket_);
    std::vector<std::byte> slot(first.header.payload_bytes);
    const auto payload = co_await reader_.read_payload(reader_socket_, slot);
    const auto next = co_await reader_.read_header(reader_socket_);
    co_return std::pair{payload, next.error};
  }());
  EXPECT_FALSE(payload_ec);
  EXPECT_EQ(header_ec, asio::error::eof);
}

TEST_F(MessageReaderTest, APayloadCutShortIsAnError) {
  auto wire = wire_frame(0, 4096, 4096);
  wire.resize(kHeaderBytes + 1000);
  write(wire);
  writer_socket_.shutdown(tcp::socket::shutdown_send);
  auto ec = run([&]() -> awaitable<error_code> {
    auto first = co_await reader_.read_header(reader_socket_);
    std::vector<std::byte> slot(first.header.payload_bytes);
    co_return co_await reader_.read_payload(reader_socket_, slot);
  }());
  EXPECT_EQ(ec, asio::error::eof);
}

}  // namespace
}  // namespace hdstream
