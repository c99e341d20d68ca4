// How a feed goes on the wire, and the one factory for every wire format: a transport (tcp,
// mtcp, srt) carrying verified hdstream chunks, or standard MPEG-TS over SRT (`--mux ts`) for
// ffmpeg, GStreamer and srt-live-transmit.
//   const Wire wire{TransportKind::srt, Mux::ts, {ts_video_rate_bps(std::nullopt), TsAudio::aac}};
//   if (auto problem = wire_problem(wire)) fail(*problem);
//   auto sender = make_sender(wire, strand, sender_options(request), counters);
//   auto receiver = make_receiver(wire, io, receiver_options, stats, consumer);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mux/ts_audio.hpp"
#include "protocol/handshake.hpp"
#include "transport/transport.hpp"

namespace hdstream {

struct MediaOutput;  // pipeline/media_output.hpp

// How a feed is framed: hdstream chunks (any transport) or MPEG-TS (srt only).
enum class Mux : std::uint8_t { none = 0, ts = 1 };

std::string_view to_string(Mux mux);
std::optional<Mux> mux_from_string(std::string_view name);

struct Wire {
  TransportKind transport = TransportKind::tcp;
  Mux mux = Mux::none;
  // Mux::ts senders: the MPEG-2 4:2:2 video rate and how the sound goes (mux/ts_audio.hpp).
  TsSettings ts;
};

// Why no feed can go over this wire, in one line naming the option to fix; nullopt when one can.
std::optional<std::string> wire_problem(const Wire& wire);

// A sender for one feed. Mux::ts needs a video feed (options.hello.feed): each frame is
// re-encoded (mux/TsStage) and sent as messages (transport/SrtMessageSender).
std::shared_ptr<SenderTransport> make_sender(const Wire& wire, asio::any_io_executor executor,
                                             SenderOptions options, StreamCounters& counters);

// Mux::ts: the TS receiver plays and records each session's sound and pictures itself, to
// `ts_output` (none: counted only).
std::shared_ptr<ReceiverTransport> make_receiver(const Wire& wire, asio::io_context& context,
                                                 ReceiverOptions options, StatsRegistry& stats,
                                                 FrameConsumer& consumer,
                                                 const MediaOutput* ts_output = nullptr);

}  // namespace hdstream
