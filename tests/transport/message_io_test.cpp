// MessageReader over a real loopback TCP connection: payloads land in their slots, the header
// behind a payload comes in the same read, a frame's next chunks are read ahead into their places
// (with a real Reassembler saying where), and a stream cut, corrupted or out of its frame's order
// anywhere is an error; and write_gathered puts a whole gather list on the wire.
#include "transport/message_io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <future>
#include <memory>
#include <thread>

#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"
#include "protocol/packetizer.hpp"
#include "protocol/reassembler.hpp"
#include "tests/support/eventually.hpp"

namespace hdstream {
namespace {

FrameBytes counting_frame(std::uint64_t seq, std::size_t bytes) {
  FrameBytes data(bytes);
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

  // Each chunk of one frame of `bytes` counting bytes as it goes on the wire (header + payload),
  // to reorder or alter.
  static std::vector<std::vector<std::byte>> wire_chunks(std::uint64_t seq, std::size_t bytes,
                                                         std::uint32_t chunk_bytes) {
    Frame frame;
    frame.seq = seq;
    frame.data = counting_frame(seq, bytes);
    std::vector<EncodedChunk> chunks;
    packetize(frame, chunk_bytes, chunks);
    std::vector<std::vector<std::byte>> out;
    for (const auto& chunk : chunks) {
      auto& wire = out.emplace_back(chunk.header.begin(), chunk.header.end());
      wire.insert(wire.end(), chunk.payload.begin(), chunk.payload.end());
    }
    return out;
  }

  // The whole frame as it goes on the wire.
  static std::vector<std::byte> wire_frame(std::uint64_t seq, std::size_t bytes,
                                           std::uint32_t chunk_bytes) {
    std::vector<std::byte> wire;
    for (const auto& chunk : wire_chunks(seq, bytes, chunk_bytes)) {
      wire.insert(wire.end(), chunk.begin(), chunk.end());
    }
    return wire;
  }

  void write(std::span<const std::byte> bytes) {
    asio::write(writer_socket_, asio::buffer(bytes.data(), bytes.size()));
  }

  // Writes `bytes` and waits until all of them are queued on the reading socket, for tests of
  // what one read takes (loopback delivery can lag the write on a loaded machine).
  void write_queued(std::span<const std::byte> bytes) {
    write(bytes);
    ASSERT_TRUE(test::eventually([&] { return reader_socket_.available() >= bytes.size(); }));
  }

  template <typename T>
  T run(awaitable<T> task) {
    auto future = asio::co_spawn(io_, std::move(task), asio::use_future);
    io_.restart();
    io_.run();
    return future.get();
  }

  // Reads chunk messages until `frames` frames are whole; returns their bytes in order.
  awaitable<std::vector<FrameBytes>> read_frames(int frames) {
    std::vector<FrameBytes> out;
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

  // As tcp_receiver reads: each chunk begun in a Reassembler that knows the HELLO's chunk size,
  // its payload read with the frame's next chunks ahead. Returns the frames delivered and the
  // first error (with its header error, if any); `after_first_payload` gets bytes_read_ahead()
  // once chunk 0 of the first frame is in.
  struct Reassembled {
    std::vector<FramePtr> frames;
    boost::system::error_code error;
    HeaderError detail = HeaderError::none;
    std::size_t after_first_payload = 0;
  };
  awaitable<Reassembled> reassemble(std::uint32_t chunk_bytes, std::size_t frames) {
    Reassembled out;
    // On the heap, as in tcp_receiver.cpp: in the coroutine frame it would pass Asio's
    // small-block size, which the ASan build refuses.
    const auto reassembler_on_heap =
        std::make_unique<Reassembler>(0, ReassemblerConfig{.chunk_bytes = chunk_bytes}, pool_);
    Reassembler& reassembler = *reassembler_on_heap;
    Reassembler::Lookahead ahead;
    std::vector<std::byte> scratch;
    while (out.frames.size() < frames) {
      auto read = co_await reader_.read_header(reader_socket_);
      if (read.error) {
        out.error = read.error;
        out.detail = read.detail;
        co_return out;
      }
      auto slot = reassembler.begin_chunk(read.header, 0);
      if (slot.result == ChunkResult::accepted) {
        reassembler.chunks_ahead(read.header, MessageReader::kMaxChunksAhead, ahead);
        out.error = co_await reader_.read_payload(reader_socket_, slot.destination, &ahead);
        if (!out.error) reassembler.commit_chunk(read.header, 0);
      } else {
        out.error =
            co_await reader_.discard_payload(reader_socket_, read.header.payload_bytes, scratch);
      }
      if (out.error) co_return out;
      if (out.frames.empty() && read.header.chunk_index == 0) {
        out.after_first_payload = reader_.bytes_read_ahead();
      }
      while (FramePtr frame = reassembler.pop(0)) out.frames.push_back(frame);
    }
    co_return out;
  }

  asio::io_context io_;
  FramePool pool_;
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
  write_queued(wire);
  run([&]() -> awaitable<void> {
    for (int chunk = 0; chunk < 3; ++chunk) {
      auto read = co_await reader_.read_header(reader_socket_);
      EXPECT_FALSE(read.error);
      EXPECT_EQ(read.header.chunk_index, chunk);
      std::vector<std::byte> slot(read.header.payload_bytes);
      EXPECT_FALSE(co_await reader_.read_payload(reader_socket_, slot));
      // The next header was staged by the payload's read; after the last chunk nothing is left.
      EXPECT_EQ(reader_.bytes_read_ahead(), chunk < 2 ? kHeaderBytes : 0u);
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

TEST_F(MessageReaderTest, AFrameQueuedWholeIsReadAheadIntoItsPlacesInOneRead) {
  std::vector<std::byte> wire;
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    auto frame = wire_frame(seq, 4500 + seq, 1000);  // 5 chunks, the last short
    wire.insert(wire.end(), frame.begin(), frame.end());
  }
  write_queued(wire);
  auto result = run(reassemble(1000, 3));
  ASSERT_FALSE(result.error) << result.error.message();
  ASSERT_EQ(result.frames.size(), 3u);
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    EXPECT_EQ(result.frames[seq]->data, counting_frame(seq, 4500 + seq)) << seq;
  }
  // Chunk 0's read took the frame's four other chunks, headers and payloads, and the next
  // frame's first header with it.
  EXPECT_EQ(result.after_first_payload, 4 * kHeaderBytes + 3500 + kHeaderBytes);
}

TEST_F(MessageReaderTest, ReadAheadSurvivesAnyWritePattern) {
  std::vector<std::byte> wire;
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    // 40 chunks: more than one read-ahead's worth (16), so a frame's reads start anew mid-frame.
    auto frame = wire_frame(seq, 40'000 + seq * 7, 1024);
    wire.insert(wire.end(), frame.begin(), frame.end());
  }
  // Cut inside headers, right after them, mid payload, a byte at a time.
  std::thread writer([&] {
    std::size_t at = 0;
    for (std::size_t piece : {1ul, 47ul, 1ul, 30ul, 4100ul, 3ul, 1ul, 1ul, 9000ul, 47ul}) {
      write(std::span(wire).subspan(at, piece));
      at += piece;
    }
    write(std::span(wire).subspan(at));
  });
  auto result = run(reassemble(1024, 4));
  writer.join();
  ASSERT_FALSE(result.error) << result.error.message();
  ASSERT_EQ(result.frames.size(), 4u);
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    EXPECT_EQ(result.frames[seq]->data, counting_frame(seq, 40'000 + seq * 7)) << seq;
  }
}

// Between frames anything may come, as before: an empty frame, a late chunk (thrown away), END.
TEST_F(MessageReaderTest, BetweenFramesAnyMessageIsReadAsUsual) {
  std::vector<std::byte> wire = wire_frame(0, 4500, 1000);
  const auto empty = wire_frame(1, 0, 1000);
  const auto late = wire_chunks(0, 4500, 1000)[2];  // frame 0 was delivered
  const auto next = wire_frame(2, 4500, 1000);
  const auto end = encode_end(0, End{.frames_sent = 3});
  for (const auto* part : {&empty, &late, &next, &end}) {
    wire.insert(wire.end(), part->begin(), part->end());
  }
  write(wire);
  auto [result, end_read] = run([&]() -> awaitable<std::pair<Reassembled, HeaderRead>> {
    auto frames = co_await reassemble(1000, 3);
    co_return std::pair{frames, co_await reader_.read_header(reader_socket_)};
  }());
  ASSERT_FALSE(result.error) << result.error.message();
  ASSERT_EQ(result.frames.size(), 3u);
  EXPECT_EQ(result.frames[0]->data, counting_frame(0, 4500));
  EXPECT_TRUE(result.frames[1]->data.empty());
  EXPECT_EQ(result.frames[2]->data, counting_frame(2, 4500));
  ASSERT_FALSE(end_read.error);
  EXPECT_EQ(end_read.header.type, MessageType::end);
}

// Where a tcp session owes the frame's next chunk, anything else is refused, whatever it is.
class OutOfOrderTest : public MessageReaderTest, public ::testing::WithParamInterface<std::string> {
 protected:
  // What the hostile or broken sender puts where chunk 1 of frame 0 is owed.
  static std::vector<std::byte> intruder(const std::string& what) {
    const auto chunks = wire_chunks(0, 4500, 1000);
    if (what == "later_chunk") return chunks[2];
    if (what == "duplicate") return chunks[0];
    if (what == "another_frame") return wire_chunks(1, 4500, 1000)[1];
    return encode_end(0, End{.frames_sent = 1});  // a control message mid-frame
  }
};

TEST_P(OutOfOrderTest, AnythingButTheFramesNextChunkWhereItIsOwedIsAProtocolError) {
  std::vector<std::byte> wire(wire_chunks(0, 4500, 1000)[0]);
  const auto extra = intruder(GetParam());
  wire.insert(wire.end(), extra.begin(), extra.end());
  write(wire);
  auto result = run(reassemble(1000, 1));
  EXPECT_EQ(result.error, boost::system::errc::protocol_error);
  EXPECT_EQ(result.detail, HeaderError::out_of_order);
  EXPECT_TRUE(result.frames.empty());
}

INSTANTIATE_TEST_SUITE_P(Intruders, OutOfOrderTest,
                         ::testing::Values("later_chunk", "duplicate", "another_frame", "end"),
                         [](const auto& param_info) { return param_info.param; });

TEST_F(MessageReaderTest, ARefusedChunkWhoseBytesWereReadAheadIsAProtocolError) {
  auto chunks = wire_chunks(0, 4500, 1000);
  // Chunk 1 where it is owed, but its header disagrees with its frame (another timestamp): the
  // reassembler refuses it, and what was read ahead of it cannot be unread.
  MessageHeader header;
  ASSERT_EQ(decode_header(std::span(chunks[1]).first(kHeaderBytes), header), HeaderError::none);
  header.timestamp_ns += 1;
  encode_header(header, std::span(chunks[1]).first<kHeaderBytes>());
  std::vector<std::byte> wire(chunks[0]);
  wire.insert(wire.end(), chunks[1].begin(), chunks[1].end());
  write(wire);
  auto result = run(reassemble(1000, 1));
  EXPECT_EQ(result.error, boost::system::errc::protocol_error);
  EXPECT_EQ(result.detail, HeaderError::none);
}

TEST_F(MessageReaderTest, APayloadReadAheadMustBeTakenIntoItsOwnPlace) {
  const auto wire = wire_frame(0, 3000, 1000);
  write(wire);
  auto ec = run([&]() -> awaitable<error_code> {
    const auto reassembler_on_heap =  // as above
        std::make_unique<Reassembler>(0, ReassemblerConfig{.chunk_bytes = 1000}, pool_);
    Reassembler& reassembler = *reassembler_on_heap;
    Reassembler::Lookahead ahead;
    auto first = co_await reader_.read_header(reader_socket_);
    auto slot = reassembler.begin_chunk(first.header, 0);
    reassembler.chunks_ahead(first.header, MessageReader::kMaxChunksAhead, ahead);
    EXPECT_FALSE(co_await reader_.read_payload(reader_socket_, slot.destination, &ahead));
    auto second = co_await reader_.read_header(reader_socket_);
    EXPECT_FALSE(second.error);
    std::vector<std::byte> elsewhere(second.header.payload_bytes);
    co_return co_await reader_.read_payload(reader_socket_, elsewhere);
  }());
  EXPECT_EQ(ec, boost::system::errc::protocol_error);
}

TEST_F(MessageReaderTest, AStreamCutInsideWhatIsReadAheadIsAnError) {
  auto wire = wire_frame(0, 4500, 1000);
  wire.resize(2 * (kHeaderBytes + 1000) + kHeaderBytes + 300);  // chunks 0, 1 and part of 2
  write(wire);
  writer_socket_.shutdown(tcp::socket::shutdown_send);
  auto result = run(reassemble(1000, 1));
  EXPECT_EQ(result.error, asio::error::eof);
  EXPECT_TRUE(result.frames.empty());
}

// GatherCursor, without sockets: whatever each call takes (inside a buffer, exactly to a
// buffer's end, everything offered), the next call starts at the first byte not yet written,
// offers at most kMaxGatherBuffers buffers and skips empty ones, runs of them longer than one
// call included.
std::vector<std::byte> bytes_of(const std::vector<asio::const_buffer>& buffers) {
  std::vector<std::byte> out;
  for (const auto& buffer : buffers) {
    const auto* data = static_cast<const std::byte*>(buffer.data());
    out.insert(out.end(), data, data + buffer.size());
  }
  return out;
}

TEST(GatherCursor, EveryCallStartsAtTheFirstByteNotYetWritten) {
  std::vector<std::vector<std::byte>> pieces;
  for (std::size_t i = 0; i < 400; ++i) {
    // Sizes 1..300, and a run of 150 empty buffers in the middle and 3 at the end.
    const bool empty = (i >= 100 && i < 250) || i >= 397;
    auto& piece = pieces.emplace_back(empty ? 0 : (i * 37) % 300 + 1);
    for (std::size_t j = 0; j < piece.size(); ++j) piece[j] = static_cast<std::byte>(i * 3 + j);
  }
  std::vector<asio::const_buffer> list;
  for (const auto& piece : pieces) list.emplace_back(piece.data(), piece.size());
  const std::vector<std::byte> all = bytes_of(list);

  // Takes cycling through: a few bytes, up to the end of the first offered buffer, everything
  // offered, and 1000 bytes.
  GatherCursor cursor(list);
  std::vector<asio::const_buffer> call;
  std::size_t written = 0;
  for (int step = 0; !cursor.done(); ++step) {
    ASSERT_LT(step, 10'000);
    cursor.next_call(call);
    ASSERT_FALSE(call.empty());
    ASSERT_LE(call.size(), kMaxGatherBuffers);
    const std::vector<std::byte> offered = bytes_of(call);
    ASSERT_TRUE(std::equal(offered.begin(), offered.end(),
                           all.begin() + static_cast<std::ptrdiff_t>(written)))
        << "step " << step;
    std::size_t take = 0;
    switch (step % 4) {
      case 0:
        take = std::min<std::size_t>(offered.size(), 7);
        break;
      case 1:
        take = call.front().size();
        break;
      case 2:
        take = offered.size();
        break;
      default:
        take = std::min<std::size_t>(offered.size(), 1000);
        break;
    }
    cursor.consume(take);
    written += take;
  }
  EXPECT_EQ(written, all.size());
}

TEST(GatherCursor, AFramesChunksGoToOneCall) {
  // A 1.1 MB frame in 64 KiB chunks: 18 headers and 18 payloads, one sendmsg's worth.
  std::vector<std::byte> storage(kMaxGatherBuffers + 36);
  std::vector<asio::const_buffer> frame;
  for (std::size_t i = 0; i < 36; ++i) frame.emplace_back(&storage[i], 1);
  GatherCursor whole(frame);
  std::vector<asio::const_buffer> call;
  whole.next_call(call);
  EXPECT_EQ(call.size(), 36u);
  whole.consume(36);
  EXPECT_TRUE(whole.done());

  std::vector<asio::const_buffer> longer;
  for (std::size_t i = 0; i < kMaxGatherBuffers + 36; ++i) longer.emplace_back(&storage[i], 1);
  GatherCursor split(longer);
  split.next_call(call);
  EXPECT_EQ(call.size(), kMaxGatherBuffers);
  split.consume(kMaxGatherBuffers);
  split.next_call(call);
  EXPECT_EQ(call.size(), 36u);
  EXPECT_EQ(call.front().data(), &storage[kMaxGatherBuffers]);

  GatherCursor nothing(std::span<const asio::const_buffer>{});
  EXPECT_TRUE(nothing.done());
}

// write_gathered over a real connection: three times the buffers one sendmsg takes, of many
// sizes and some empty, through socket buffers far smaller than the list, so calls stop inside
// buffers and between them; what arrives is the list's bytes in order, and nothing more.
TEST_F(MessageReaderTest, AGatherListArrivesWholeAndInOrderThroughPartialWrites) {
  writer_socket_.set_option(asio::socket_base::send_buffer_size(64 * 1024));
  reader_socket_.set_option(asio::socket_base::receive_buffer_size(64 * 1024));
  std::vector<std::vector<std::byte>> pieces;
  std::vector<std::byte> expected;
  for (std::size_t i = 0; i < 3 * kMaxGatherBuffers + 5; ++i) {
    auto& piece = pieces.emplace_back(i % 7 == 0 ? 0 : (i * 997) % 20000 + 1);
    for (std::size_t j = 0; j < piece.size(); ++j) piece[j] = static_cast<std::byte>(i + j * 3);
    expected.insert(expected.end(), piece.begin(), piece.end());
  }
  std::vector<asio::const_buffer> gather;
  for (const auto& piece : pieces) gather.emplace_back(piece.data(), piece.size());
  std::vector<std::byte> received;
  std::thread reader([&] {  // until the writer's shutdown: whatever it sent, however much
    std::array<std::byte, 16 * 1024> block{};
    error_code ec;
    while (!ec) {
      const std::size_t n = reader_socket_.read_some(asio::buffer(block), ec);
      received.insert(received.end(), block.begin(),
                      block.begin() + static_cast<std::ptrdiff_t>(n));
    }
  });
  const auto ec = run([&]() -> awaitable<error_code> {
    auto written = co_await write_gathered(writer_socket_, gather);
    error_code ignored;
    writer_socket_.shutdown(tcp::socket::shutdown_send, ignored);
    co_return written;
  }());
  reader.join();
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(received.size(), expected.size());
  EXPECT_TRUE(received == expected);
}

TEST_F(MessageReaderTest, AGatherWriteToAPeerThatResetIsAnError) {
  reader_socket_.set_option(asio::socket_base::linger(true, 0));
  reader_socket_.close();  // a reset, not an orderly close
  std::vector<std::byte> frame(8 << 20);
  const std::vector<asio::const_buffer> gather{asio::buffer(frame), asio::buffer(frame)};
  EXPECT_TRUE(run(write_gathered(writer_socket_, gather)));
}

}  // namespace
}  // namespace hdstream
