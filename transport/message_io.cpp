#include "transport/message_io.hpp"

#include <algorithm>
#include <array>

#include "protocol/checksum.hpp"

namespace hdstream {

namespace {

HeaderRead decoded(std::span<const std::byte> bytes) {
  HeaderRead result;
  result.detail = decode_header(bytes, result.header);
  if (result.detail != HeaderError::none) {
    result.error = boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  }
  return result;
}

}  // namespace

awaitable<HeaderRead> read_header(tcp::socket& socket) {
  std::array<std::byte, kHeaderBytes> bytes{};
  error_code ec;
  co_await asio::async_read(socket, asio::buffer(bytes), nothrow(ec));
  if (ec) co_return HeaderRead{.error = ec};
  co_return decoded(bytes);
}

boost::system::error_code MessageReader::out_of_turn() {
  return boost::system::errc::make_error_code(boost::system::errc::protocol_error);
}

void MessageReader::start_layout(std::span<std::byte> payload,
                                 const Reassembler::Lookahead* ahead) {
  held_ = ahead ? ahead->frame : nullptr;
  layout_.clear();
  received_ = 0;
  cursor_ = 0;
  auto add = [this](std::span<std::byte> bytes, Segment segment) {
    segment.bytes = bytes;
    segment.end = (layout_.empty() ? 0 : layout_.back().end) + bytes.size();
    layout_.push_back(segment);
  };
  add(payload, {});
  const std::size_t count = ahead ? std::min(ahead->chunks.size(), kMaxChunksAhead) : 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Reassembler::Ahead& chunk = ahead->chunks[i];
    add((*headers_)[i],
        {.read_ahead = true, .frame_seq = chunk.frame_seq, .chunk_index = chunk.chunk_index});
    add(chunk.destination, {});
  }
  add((*headers_)[count], {});  // the next message, whatever it is
}

awaitable<boost::system::error_code> MessageReader::fill_through(tcp::socket& socket,
                                                                 std::size_t segment) {
  const std::size_t target = layout_[segment].end;
  while (received_ < target) {
    // Everything expected from here to the layout's end, as one scatter list.
    iovecs_.clear();
    for (const Segment& s : layout_) {
      if (s.end <= received_ || s.bytes.empty()) continue;
      const std::size_t begin = s.end - s.bytes.size();
      const std::size_t skip = received_ > begin ? received_ - begin : 0;
      iovecs_.emplace_back(s.bytes.data() + skip, s.bytes.size() - skip);
    }
    error_code ec;
    // A span, not the vector: the operation copies its buffer sequence, and this one is cheap.
    received_ += co_await socket.async_read_some(std::span<const asio::mutable_buffer>(iovecs_),
                                                 nothrow(ec));
    if (ec) co_return ec;
  }
  co_return boost::system::error_code{};
}

awaitable<HeaderRead> MessageReader::read_header(tcp::socket& socket) {
  HeaderRead result;
  if (at_message_boundary()) {
    start_layout({}, nullptr);  // no payload pending: just the next header
    cursor_ = 1;
  } else if (cursor_ % 2 == 0) {   // [payload][header][payload]...[header]
    result.error = out_of_turn();  // a payload read ahead is read_payload's to take first
    co_return result;
  }
  result.error = co_await fill_through(socket, cursor_);
  if (result.error) co_return result;
  const Segment& segment = layout_[cursor_++];
  result = decoded(segment.bytes);
  if (!result.error && segment.read_ahead &&
      (result.header.type != MessageType::chunk || result.header.frame_seq != segment.frame_seq ||
       result.header.chunk_index != segment.chunk_index)) {
    result.detail = HeaderError::out_of_order;
    result.error = boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  }
  co_return result;
}

awaitable<boost::system::error_code> MessageReader::read_payload(
    tcp::socket& socket, std::span<std::byte> destination, const Reassembler::Lookahead* ahead) {
  if (payload_read_ahead()) {
    // Already (partly) read into the place the reassembler gave for this chunk ahead of time.
    const auto& expected = layout_[cursor_].bytes;
    if (destination.data() != expected.data() || destination.size() != expected.size()) {
      co_return out_of_turn();
    }
  } else if (at_message_boundary()) {
    start_layout(destination, ahead);  // after the layout's last header: nothing read past it
  } else {
    co_return out_of_turn();  // a payload after a payload
  }
  const auto ec = co_await fill_through(socket, cursor_);
  if (ec) co_return ec;
  ++cursor_;
  co_return boost::system::error_code{};
}

awaitable<boost::system::error_code> MessageReader::discard_payload(
    tcp::socket& socket, std::size_t bytes, std::vector<std::byte>& scratch) {
  if (!at_message_boundary()) co_return out_of_turn();
  co_return co_await discard(socket, bytes, scratch);
}

awaitable<BodyRead> read_control_body(tcp::socket& socket, const MessageHeader& header,
                                      std::vector<std::byte>& body) {
  BodyRead result;
  body.resize(std::min<std::size_t>(header.payload_bytes, kMaxControlBytes));
  co_await asio::async_read(socket, asio::buffer(body), nothrow(result.error));
  result.checksum_ok = !result.error && payload_checksum(body) == header.payload_xxh3;
  co_return result;
}

void GatherCursor::next_call(std::vector<asio::const_buffer>& call) const {
  call.clear();
  for (std::size_t i = next_; i < buffers_.size() && call.size() < kMaxGatherBuffers; ++i) {
    call.push_back(buffers_[i]);
  }
  if (!call.empty()) call.front() += written_in_;
}

void GatherCursor::consume(std::size_t bytes) {
  // Past every buffer the call took whole (empty ones included), then into the one it stopped
  // in.
  bytes += written_in_;
  while (next_ < buffers_.size() && bytes >= buffers_[next_].size()) {
    bytes -= buffers_[next_].size();
    ++next_;
  }
  written_in_ = bytes;
}

awaitable<boost::system::error_code> write_gathered(tcp::socket& socket,
                                                    std::span<const asio::const_buffer> buffers) {
  GatherCursor cursor(buffers);
  // On the heap: 64 buffers in the coroutine frame would take it past Asio's small-block size,
  // which the ASan build refuses (as MessageReader's header slots would).
  std::vector<asio::const_buffer> call;
  call.reserve(kMaxGatherBuffers);
  while (!cursor.done()) {
    cursor.next_call(call);
    error_code ec;
    const std::size_t sent =
        co_await socket.async_write_some(std::span<const asio::const_buffer>(call), nothrow(ec));
    if (ec) co_return ec;
    // A stream socket writes something or fails; a call that did neither would loop forever.
    if (sent == 0 && asio::buffer_size(call) > 0) {
      co_return boost::system::errc::make_error_code(boost::system::errc::io_error);
    }
    cursor.consume(sent);
  }
  co_return boost::system::error_code{};
}

awaitable<boost::system::error_code> discard(tcp::socket& socket, std::size_t bytes,
                                             std::vector<std::byte>& scratch) {
  if (scratch.size() < 64 * 1024) scratch.resize(64 * 1024);
  while (bytes > 0) {
    const std::size_t piece = std::min(bytes, scratch.size());
    error_code ec;
    const std::size_t n =
        co_await asio::async_read(socket, asio::buffer(scratch.data(), piece), nothrow(ec));
    if (ec) co_return ec;
    bytes -= n;
  }
  co_return boost::system::error_code{};
}

}  // namespace hdstream
