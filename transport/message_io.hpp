// Reading and writing whole hdstream messages on a stream socket, as coroutines. An error from
// any of them ends the socket's use: a second read of a reset connection can wait forever
// (Asio's epoll reactor then waits for a readiness edge that never comes).
//   auto [ec, header] = co_await read_header(socket);
//   std::vector<std::byte> body;  ec = co_await read_control_body(socket, header, body);
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <system_error>
#include <vector>

#include "common/asio.hpp"
#include "protocol/reassembler.hpp"
#include "protocol/wire.hpp"

namespace hdstream {

// Reads and validates one 48-byte header. A header that fails validation yields
// `protocol_error` and the decode error in `detail`.
struct HeaderRead {
  boost::system::error_code error;
  HeaderError detail = HeaderError::none;
  MessageHeader header;
};
awaitable<HeaderRead> read_header(tcp::socket& socket);

// Reads a control message's body (at most kMaxControlBytes) and checks its XXH3-64.
// Returns false in `ok` when the checksum does not match.
struct BodyRead {
  boost::system::error_code error;
  bool checksum_ok = false;
};
awaitable<BodyRead> read_control_body(tcp::socket& socket, const MessageHeader& header,
                                      std::vector<std::byte>& body);

// Reads a stream of messages with few syscalls. A chunk's payload is read with recvmsg into its
// destination, then the header after it; and when the reassembler knows where the frame's next
// chunks will land (Reassembler::chunks_ahead: a tcp session sends a frame's chunks in order,
// back to back), into their headers and places too, so one recvmsg takes as much of the frame as
// the socket holds, each payload straight into its place, instead of one chunk a call (a 1 MiB
// frame in 64 KiB chunks was 17 calls, and their wake-ups and ACKs, per frame).
// A header read where the next chunk of the frame was expected must be that chunk (else
// `HeaderError::out_of_order`), and read_payload must then be given that chunk's place.
// One reader per socket, used by one coroutine.
//   MessageReader reader;
//   auto read = co_await reader.read_header(socket);
//   reassembler.chunks_ahead(read.header, MessageReader::kMaxChunksAhead, ahead);
//   ec = co_await reader.read_payload(socket, slot.destination, &ahead);  // until slot is full
class MessageReader {
 public:
  static constexpr std::size_t kMaxChunksAhead = 16;
  // Asio (Boost 1.74) hands a recvmsg at most 64 buffers: the payload, two per chunk ahead and
  // the next header must fit.
  static_assert(2 * kMaxChunksAhead + 2 <= 64);

  awaitable<HeaderRead> read_header(tcp::socket& socket);
  // `ahead` is used only when this payload's header was not itself read ahead; its frame is held
  // until what was read ahead into it has been taken.
  awaitable<boost::system::error_code> read_payload(tcp::socket& socket,
                                                    std::span<std::byte> destination,
                                                    const Reassembler::Lookahead* ahead = nullptr);
  // A refused chunk's payload: read and thrown away through `scratch`, unless its header was
  // read ahead (some of it is then already in the place the reassembler refused): then the
  // sender broke its frame's order, and the result is a protocol error.
  awaitable<boost::system::error_code> discard_payload(tcp::socket& socket, std::size_t bytes,
                                                       std::vector<std::byte>& scratch);
  // Bytes already read past what read_header / read_payload last returned.
  std::size_t bytes_read_ahead() const {
    return received_ - (cursor_ == 0 ? 0 : layout_[cursor_ - 1].end);
  }

 private:
  // What the socket's next bytes are expected to be, in order: the current payload, then for
  // each chunk ahead its header and place, then a header of any message. The first `received_`
  // bytes have arrived; the caller has taken segments below `cursor_`.
  struct Segment {
    std::span<std::byte> bytes;
    std::size_t end = 0;      // bytes of the layout up to this segment's end
    bool read_ahead = false;  // a header read ahead of its chunk's turn: the chunk it must be
    std::uint64_t frame_seq = 0;
    std::uint16_t chunk_index = 0;
  };
  bool payload_read_ahead() const { return cursor_ > 0 && layout_[cursor_ - 1].read_ahead; }
  // Every segment read and taken: the next bytes on the socket start a message.
  bool at_message_boundary() const { return cursor_ >= layout_.size(); }
  // A call out of turn (a payload after a payload, a header or a discard while a payload read
  // ahead waits): no caller makes one; it is refused rather than losing what was read.
  static boost::system::error_code out_of_turn();
  void start_layout(std::span<std::byte> payload, const Reassembler::Lookahead* ahead);
  awaitable<boost::system::error_code> fill_through(tcp::socket& socket, std::size_t segment);

  // On the heap: the reader lives in its session's coroutine frame, and with GCC 12 and
  // Boost 1.74 a frame past Asio's recycling allocator's small-block size is freed with a size
  // that does not match its allocation (-Wmismatched-new-delete under ASan;
  // telemetry/http_client.cpp).
  using HeaderSlots = std::array<std::array<std::byte, kHeaderBytes>, kMaxChunksAhead + 1>;
  std::unique_ptr<HeaderSlots> headers_ = std::make_unique<HeaderSlots>();
  std::vector<Segment> layout_;
  FramePtr held_;  // the frame the layout's places are in
  std::vector<asio::mutable_buffer> iovecs_;
  std::size_t received_ = 0;
  std::size_t cursor_ = 0;
};

// Where a gather write stands: the part of the list not yet written, offered to one sendmsg
// at a time (at most kMaxGatherBuffers buffers, Asio's limit for one call), and moved past
// what each call took. Pure: write_gathered's bookkeeping, tested without sockets.
inline constexpr std::size_t kMaxGatherBuffers = 64;
class GatherCursor {
 public:
  explicit GatherCursor(std::span<const asio::const_buffer> buffers) : buffers_(buffers) {}
  bool done() const { return next_ == buffers_.size(); }
  // The next call's buffers (replacing `call`'s contents): what is left of the first buffer
  // not wholly written, then the ones after it.
  void next_call(std::vector<asio::const_buffer>& call) const;
  // `bytes` more were written, at most what next_call offered.
  void consume(std::size_t bytes);

 private:
  std::span<const asio::const_buffer> buffers_;
  std::size_t next_ = 0;        // the first buffer not wholly written
  std::size_t written_in_ = 0;  // bytes of it already written
};

// Writes all of a scatter/gather list (chunk headers and payloads), each sendmsg offered as
// much of it as one call takes. asio::async_write hands sendmsg at most 16 buffers a call (its
// consuming_buffers), and without a completion condition at most 64 KiB: a 1.1 MB frame in
// 64 KiB chunks, 36 buffers, took 3 calls, an mtcp batch of 32 chunks 33. The list (not only
// the bytes it points to) must stay unchanged until the write completes.
//   ec = co_await write_gathered(socket, gather);
awaitable<boost::system::error_code> write_gathered(tcp::socket& socket,
                                                    std::span<const asio::const_buffer> buffers);

// Reads and throws away `bytes` bytes (the payload of a refused chunk) through `scratch`.
awaitable<boost::system::error_code> discard(tcp::socket& socket, std::size_t bytes,
                                             std::vector<std::byte>& scratch);

}  // namespace hdstream
