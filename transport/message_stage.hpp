// A pipeline stage in front of a message transport: it turns each frame into the messages that
// go on the wire, in the shape of GStreamer's `mpegtsmux ! srtsink`. mux/TsStage is one:
// decode, MPEG-2 4:2:2, MPEG-TS in 1316-byte messages. Every call runs on the feed's thread.
//   stage->prepare();                        // before connecting; throws StageError
//   stage->open([&](std::span<const std::byte> m) { return send(m); });
//   counters.add_frame(stage->push(*frame), now);  ...  stage->finish();
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

#include "protocol/frame.hpp"

namespace hdstream {

class StageError : public std::runtime_error {
 public:
  StageError(const std::string& what, bool frame_only)
      : std::runtime_error(what), frame_only_(frame_only) {}
  // true: only this frame is lost (a source frame the stage cannot read; counted as a drop)
  // and the feed goes on. false: the stage cannot go on (or a send failed) and the feed ends.
  bool frame_only() const { return frame_only_; }

 private:
  bool frame_only_;
};

class MessageStage {
 public:
  // Hands one message to the transport; false once it cannot be sent (the connection is gone
  // or the feed stopped): the stage then fails with StageError.
  using Send = std::function<bool(std::span<const std::byte>)>;

  virtual ~MessageStage() = default;
  // The rate the stage's stream is planned at (not the feed's own): the feed's planned rate in
  // the stats and its verdict.
  virtual std::uint64_t planned_rate_bps() const = 0;
  // That rate with the container's overhead (TS and PES headers, tables): sizes the
  // transport's buffers.
  virtual std::uint64_t wire_rate_bps() const = 0;
  // The payload of one message (SRTO_PAYLOADSIZE).
  virtual int message_bytes() const = 0;
  // What the stage makes, for the log: "MPEG-TS (1920x1080 29.97 fps as MPEG-2 4:2:2 ...)".
  virtual std::string describe() const = 0;
  // Before connecting: what can fail without the network (opening a decoder), so that a feed
  // the stage cannot carry fails without ever connecting. Throws StageError.
  virtual void prepare() = 0;
  // Once connected: from now on messages go to `send`. Throws StageError.
  virtual void open(Send send) = 0;
  // One frame's messages; returns the bytes they put on the wire. Throws StageError.
  virtual std::uint64_t push(const Frame& frame) = 0;
  // At the end of the feed: what the stage still holds; returns its bytes. Throws StageError.
  virtual std::uint64_t finish() = 0;
};

}  // namespace hdstream
