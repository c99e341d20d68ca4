#include "mux/ts_srt_receiver.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mux/av_error.hpp"
#include "mux/ts_feed_media.hpp"
#include "transport/srt/srt_link.hpp"

namespace hdstream {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("ts");
}

// libavformat pulls TS bytes through this: one SRT message (7 x 188 bytes) at a time.
struct SrtReadContext {
  SrtSocket* socket = nullptr;
  const std::atomic<bool>* stopped = nullptr;
  std::array<std::byte, 1500> message{};
  std::size_t offset = 0;
  std::size_t size = 0;
  std::uint64_t bytes = 0;
};

int read_packet(void* opaque, std::uint8_t* buffer, int capacity) {
  auto& context = *static_cast<SrtReadContext*>(opaque);
  while (context.offset == context.size) {
    if (context.stopped->load()) return AVERROR_EXIT;
    std::size_t received = 0;
    const SrtIo io = context.socket->receive(context.message, received);
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) return AVERROR_EOF;
    context.offset = 0;
    context.size = received;
    context.bytes += received;
  }
  const std::size_t n =
      std::min<std::size_t>(static_cast<std::size_t>(capacity), context.size - context.offset);
  std::memcpy(buffer, context.message.data() + context.offset, n);
  context.offset += n;
  return static_cast<int>(n);
}

constexpr std::int64_t kAnalyzeDuration = AV_TIME_BASE / 2;
constexpr std::int64_t kAnalyzeBytes = 1 << 20;

struct FormatDeleter {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct IoDeleter {
  void operator()(AVIOContext* c) const {
    av_freep(&c->buffer);
    avio_context_free(&c);
  }
};

}  // namespace

TsSrtReceiver::TsSrtReceiver(ReceiverOptions options, MediaOutput output, StatsRegistry& stats,
                             FrameConsumer& consumer)
    : options_(std::move(options)),
      output_(std::move(output)),
      stats_(stats),
      consumer_(consumer),
      pool_(8) {}

TsSrtReceiver::~TsSrtReceiver() = default;

void TsSrtReceiver::start() {
  SrtPlan plan = srt_plan(1'000'000'000, options_.srt, std::chrono::milliseconds(1));
  plan.payload_bytes = kSrtTsPayloadBytes;  // what ffmpeg and GStreamer send: 7 TS packets
  // Plain MPEG-TS has no legs to merge: one lane, one session per port at a time.
  listeners_.start(plan, options_.listen, options_.streams, /*lanes=*/1,
                   [this](std::uint16_t stream, std::uint8_t, SrtSocket& socket) {
                     run_session(stream, socket);
                   });
  log()->info("listening on UDP ports {}..{} for {} MPEG-TS over SRT stream(s)",
              listeners_.base_port(), listeners_.base_port() + options_.streams - 1,
              options_.streams);
}

Endpoint TsSrtReceiver::local_endpoint() const {
  return listeners_.local_endpoint(options_.listen);
}

void TsSrtReceiver::stop() {
  listeners_.stop();
}

void TsSrtReceiver::run_session(std::uint16_t stream, SrtSocket& socket) {
  const std::string peer = socket.peer();
  StreamCounters& counters = stats_.stream(stream);
  SrtReadContext read_context{.socket = &socket, .stopped = &listeners_.stopped()};

  constexpr int kIoBufferBytes = 64 * 1024;
  auto* io_buffer = static_cast<std::uint8_t*>(av_malloc(kIoBufferBytes));
  std::unique_ptr<AVIOContext, IoDeleter> io(avio_alloc_context(
      io_buffer, kIoBufferBytes, 0, &read_context, read_packet, nullptr, nullptr));
  AVFormatContext* raw_format = avformat_alloc_context();
  raw_format->pb = io.get();
  raw_format->flags |= AVFMT_FLAG_CUSTOM_IO;
  raw_format->interrupt_callback = AVIOInterruptCB{
      [](void* self) { return static_cast<TsSrtReceiver*>(self)->listeners_.stopped() ? 1 : 0; },
      this};
  const AVInputFormat* mpegts = av_find_input_format("mpegts");
  if (int rc = avformat_open_input(&raw_format, nullptr, mpegts, nullptr); rc < 0) {
    log()->warn("stream {}: {} did not send MPEG-TS: {}", stream, peer, av_error_text(rc));
    return;  // avformat_open_input frees the context on failure
  }
  std::unique_ptr<AVFormatContext, FormatDeleter> format(raw_format);
  // What libavformat reads to learn the codecs comes out in one burst after, and a live sound
  // sink holds two seconds: half a second of the stream or 1 MiB (a TS, which may add streams
  // later, reads to the byte limit; the default 5 MB was three seconds of a 13 Mb/s TS).
  format->max_analyze_duration = kAnalyzeDuration;
  format->probesize = kAnalyzeBytes;
  if (int rc = avformat_find_stream_info(format.get(), nullptr); rc < 0) {
    log()->warn("stream {}: no stream information from {}: {}", stream, peer, av_error_text(rc));
    return;
  }
  const AVCodec* codec = nullptr;
  const int video = av_find_best_stream(format.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (video < 0 || !codec) {
    log()->warn("stream {}: no decodable video in the MPEG-TS from {}", stream, peer);
    return;
  }
  AVStream* av_stream = format->streams[video];
  std::unique_ptr<AVCodecContext, CodecDeleter> decoder(avcodec_alloc_context3(codec));
  avcodec_parameters_to_context(decoder.get(), av_stream->codecpar);
  if (int rc = avcodec_open2(decoder.get(), codec, nullptr); rc < 0) {
    log()->warn("stream {}: cannot open the {} decoder: {}", stream, codec->name,
                av_error_text(rc));
    return;
  }
  const AVRational rate = av_guess_frame_rate(format.get(), av_stream, nullptr);
  const int audio = av_find_best_stream(format.get(), AVMEDIA_TYPE_AUDIO, -1, video, nullptr, 0);
  std::optional<TsFeedMedia> media;
  if (output_.decodes()) {
    media.emplace(stream, *format, video, audio >= 0 ? audio : -1, output_, counters);
  }
  Hello hello;
  hello.feed.codec = Codec::invalid;  // not one of ours: the consumer does not verify content
  hello.feed.width = static_cast<std::uint16_t>(decoder->width);
  hello.feed.height = static_cast<std::uint16_t>(decoder->height);
  hello.feed.frame_rate_num = static_cast<std::uint32_t>(std::max(rate.num, 0));
  hello.feed.frame_rate_den = static_cast<std::uint32_t>(std::max(rate.den, 1));
  hello.transport = TransportKind::srt;
  if (media && media->sound()) hello.feed.audio = *media->sound();
  const std::string sound =
      audio < 0
          ? ""
          : fmt::format(", {} sound", avcodec_get_name(format->streams[audio]->codecpar->codec_id));
  log()->info("stream {}: MPEG-TS from {}: {} {}x{} @ {:.2f} fps{}", stream, peer, codec->name,
              decoder->width, decoder->height, hello.feed.frames_per_second(), sound);
  counters.state.store(StreamState::running, std::memory_order_relaxed);
  consumer_.session_started(stream, hello);

  AVPacket* packet = av_packet_alloc();
  AVFrame* picture = av_frame_alloc();
  std::int64_t first_pts = AV_NOPTS_VALUE;
  std::int64_t first_arrival_ns = 0;
  std::uint64_t seq = 0;
  std::int64_t packet_bytes = 0;
  std::int64_t packet_pts = AV_NOPTS_VALUE;
  auto next_stats = std::chrono::steady_clock::now();
  auto emit = [&](const AVFrame& decoded) {
    const std::int64_t now = wall_clock_ns();
    const std::int64_t pts = decoded.best_effort_timestamp != AV_NOPTS_VALUE
                                 ? decoded.best_effort_timestamp
                                 : packet_pts;
    if (first_pts == AV_NOPTS_VALUE && pts != AV_NOPTS_VALUE) {
      first_pts = pts;
      first_arrival_ns = now;
    }
    // The frame stands for the coded picture's size; its bytes are not carried (this stage has
    // decoded it already): zeros, never what the buffer held before.
    FramePtr frame =
        pool_.acquire(static_cast<std::size_t>(std::max<std::int64_t>(packet_bytes, 0)));
    std::fill(frame->data.begin(), frame->data.end(), std::byte{0});
    frame->stream_id = stream;
    frame->seq = seq++;
    // The media clock stands in for the sender's: RFC 3550 jitter against the stream's PTS.
    frame->ready_ns = pts == AV_NOPTS_VALUE
                          ? now
                          : first_arrival_ns + av_rescale_q(pts - first_pts, av_stream->time_base,
                                                            AVRational{1, 1'000'000'000});
    frame->arrival_ns = now;
    if (media) counters.frames_decoded.fetch_add(1, std::memory_order_relaxed);
    consumer_.frame_received(stream, std::move(frame));
  };
  bool clean = false;
  for (;;) {
    const int rc = av_read_frame(format.get(), packet);
    if (std::chrono::steady_clock::now() >= next_stats) {
      next_stats += std::chrono::milliseconds(250);
      publish_srt_stats(socket.stats(), /*sender=*/false, counters);
    }
    if (rc < 0) {
      clean = rc == AVERROR_EOF;
      if (!clean && !listeners_.stopped()) log()->warn("stream {}: {}", stream, av_error_text(rc));
      avcodec_send_packet(decoder.get(), nullptr);  // drain
    } else if (packet->stream_index != video) {
      if (media) media->packet(*packet);
      av_packet_unref(packet);
      continue;
    } else {
      if (media) media->packet(*packet);
      packet_bytes = packet->size;
      packet_pts = packet->pts;
      if (avcodec_send_packet(decoder.get(), packet) < 0) {
        counters.drops.fetch_add(1, std::memory_order_relaxed);  // undecodable picture
      }
      av_packet_unref(packet);
    }
    while (avcodec_receive_frame(decoder.get(), picture) == 0) {
      if (picture->decode_error_flags != 0) {
        counters.drops.fetch_add(1, std::memory_order_relaxed);
      } else {
        emit(*picture);
      }
      av_frame_unref(picture);
    }
    if (rc < 0) break;
  }
  av_frame_free(&picture);
  av_packet_free(&packet);
  if (media) media->finish();  // the sound played out and the files finalized before the end
  publish_srt_stats(socket.stats(), /*sender=*/false, counters);
  // SRT's own too-late drops are frames the decoder never saw whole.
  counters.state.store(clean ? StreamState::finished : StreamState::failed,
                       std::memory_order_relaxed);
  log()->info("stream {}: MPEG-TS from {} ended ({} pictures, {} bytes)", stream, peer, seq,
              read_context.bytes);
  consumer_.session_ended(stream, clean, seq);
}

}  // namespace hdstream
