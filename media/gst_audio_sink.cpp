#include "media/gst_audio_sink.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include <fmt/format.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "media/gst_runtime.hpp"
#include "media/media_error.hpp"

namespace hdstream {
namespace {

struct PlayedCounts {
  std::atomic<std::uint64_t>* played;
  std::atomic<std::uint64_t>* heard;
  std::uint32_t bytes_per_sample;
};

// Every buffer that leaves for the device's sink counts as played; one that is not silence
// (the volume element mutes a feed that is not heard) counts as heard too.
GstPadProbeReturn count_played(GstPad*, GstPadProbeInfo* info, gpointer user) {
  const auto& counts = *static_cast<const PlayedCounts*>(user);
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  if (!buffer) return GST_PAD_PROBE_OK;
  const std::uint64_t samples = gst_buffer_get_size(buffer) / counts.bytes_per_sample;
  counts.played->fetch_add(samples, std::memory_order_relaxed);
  if (GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP)) return GST_PAD_PROBE_OK;
  GstMapInfo map;
  if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) return GST_PAD_PROBE_OK;
  const auto* begin = map.data;
  const bool sound = std::any_of(begin, begin + map.size, [](guint8 b) { return b != 0; });
  gst_buffer_unmap(buffer, &map);
  if (sound) counts.heard->fetch_add(samples, std::memory_order_relaxed);
  return GST_PAD_PROBE_OK;
}

// Audio sinks take a timestamp that moved by less than their alignment threshold (40 ms) for
// jitter and play on, and follow a bigger move only after waiting a second (discont-wait): here
// the timestamps are the samples' exact times and every move is meant (the pictures wait for
// the times they say). A clocked fakesink has neither: it plays every buffer at its time.
void follow_timestamps(GstElement* element) {
  GObjectClass* type = G_OBJECT_GET_CLASS(element);
  if (g_object_class_find_property(type, "alignment-threshold")) {
    g_object_set(element, "alignment-threshold", static_cast<guint64>(GST_MSECOND), nullptr);
  }
  if (g_object_class_find_property(type, "discont-wait")) {
    g_object_set(element, "discont-wait", static_cast<guint64>(0), nullptr);
  }
}

void on_element_added(GstBin*, GstBin*, GstElement* element, gpointer) {
  follow_timestamps(element);
}

// Every sink in the pipeline now, and those autoaudiosink adds when it finds the device.
void follow_timestamps_in(GstElement* pipeline) {
  g_signal_connect(pipeline, "deep-element-added", G_CALLBACK(on_element_added), nullptr);
  GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(pipeline));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next(elements, &item) == GST_ITERATOR_OK) {
    follow_timestamps(GST_ELEMENT(g_value_get_object(&item)));
    g_value_reset(&item);
  }
  g_value_unset(&item);
  gst_iterator_free(elements);
}

GstElement* launch_with(const std::string& sink, const AudioFormat& format, std::size_t max_bytes) {
  // SDI's channels are discrete, not speaker positions: more than two are unpositioned, and the
  // device's sink takes what it can (audioconvert maps them onto its channels).
  const std::string unpositioned = format.channels > 2 ? ",channel-mask=(bitmask)0x0" : "";
  GstElement* pipeline = gst_launch(
      fmt::format("appsrc name=hdstream_audiosrc is-live=true format=time max-bytes={} block=false "
                  "leaky-type=downstream caps=\"audio/x-raw,format={},rate={},channels={},"
                  "layout=interleaved{}\" ! volume name=hdstream_volume ! audioconvert "
                  "name=hdstream_audio_convert ! audioresample ! {}",
                  max_bytes, format.bits == 16 ? "S16LE" : "S24LE", format.sample_rate,
                  format.channels, unpositioned, sink));
  follow_timestamps_in(pipeline);
  return pipeline;
}

// A sound server or a playback device to send sound to. Without one (a server, a container),
// autoaudiosink would only find that out by trying each, and ALSA says so on stderr.
bool has_sound_device() {
  namespace fs = std::filesystem;
  if (std::getenv("PULSE_SERVER")) return true;
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR")) {
    if (fs::exists(fs::path(runtime) / "pulse" / "native") ||
        fs::exists(fs::path(runtime) / "pipewire-0")) {
      return true;
    }
  }
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/dev/snd", error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("pcmC") && name.ends_with("p")) return true;  // a playback device
  }
  return false;
}

// Whether the device's sink opens (a live pipeline: no preroll to wait for, only the device).
bool reaches_paused(GstElement* pipeline) {
  if (gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) return false;
  GstState state;
  return gst_element_get_state(pipeline, &state, nullptr, GST_SECOND / 2) !=
         GST_STATE_CHANGE_FAILURE;
}

}  // namespace

GstAudioSink::GstAudioSink(const std::string& device, const AudioFormat& format) : format_(format) {
  ensure_gstreamer();
  // The queue: two seconds, room for a gap's second of silence beside the sound around it.
  const std::size_t queue = 2 * std::size_t{format.sample_rate} * format.bytes_per_sample();
  std::string sink;
  if (device == "null") {
    sink = "fakesink sync=true";
    description_ = "fakesink (null)";
  } else if (device == "auto" && !has_sound_device()) {
    sink = "fakesink sync=true";
    description_ = "fakesink (no sound device)";
  } else if (device == "auto") {
    sink = "autoaudiosink";
    description_ = "autoaudiosink";
  } else {
    sink = fmt::format("alsasink device=\"{}\"", device);
    description_ = fmt::format("alsasink {}", device);
  }
  pipeline_ = launch_with(sink, format, queue);
  // A fakesink always opens; only a device needs trying (a wait the network strand pays).
  // Either way the pipeline is PAUSED before its base time is set below: going to PAUSED
  // resets the start time that keeps it.
  if (device == "null") {
    gst_element_set_state(pipeline_, GST_STATE_PAUSED);
  } else if (!reaches_paused(pipeline_)) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    gst_object_unref(pipeline_);
    if (device != "auto") {
      throw MediaError(fmt::format("--audio-output {}: the sound device does not open", device));
    }
    // No sound device here (a server, a container): played in real time, heard nowhere.
    pipeline_ = launch_with("fakesink sync=true", format, queue);
    description_ = "fakesink (no sound device)";
    gst_element_set_state(pipeline_, GST_STATE_PAUSED);
  }
  appsrc_ = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_audiosrc");
  // Counted where the samples leave for the device's sink, still in the feed's format (the
  // sink may convert them to its own channels and rate): on a clocked sink, at their time.
  GstElement* out = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_audio_convert");
  GstPad* pad = gst_element_get_static_pad(out, "sink");
  auto* probe = new PlayedCounts{&played_, &heard_, format.bytes_per_sample()};
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_played, probe,
                    [](gpointer p) { delete static_cast<PlayedCounts*>(p); });
  gst_object_unref(pad);
  gst_object_unref(out);
  // The system clock and a base time of now, set here rather than when the sink first gets
  // samples (a live pipeline reaches PLAYING only then): the samples' times are counted from a
  // clock that runs from the start (a device's sink slaves to it).
  GstClock* clock = gst_system_clock_obtain();
  gst_pipeline_use_clock(GST_PIPELINE(pipeline_), clock);
  gst_element_set_start_time(pipeline_, GST_CLOCK_TIME_NONE);
  // A second before now, so that the running time starts at a second: the sound's clock can be
  // steered earlier than its first samples (whose origin may be only a delay after the start).
  gst_element_set_base_time(pipeline_, gst_clock_get_time(clock) - GST_SECOND);
  clock_ = clock;
  gst_element_set_state(pipeline_, GST_STATE_PLAYING);
}

void GstAudioSink::set_heard(bool heard) {
  GstElement* volume = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_volume");
  g_object_set(volume, "mute", heard ? FALSE : TRUE, nullptr);
  gst_object_unref(volume);
}

GstAudioSink::~GstAudioSink() {
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  gst_object_unref(clock_);
  gst_object_unref(appsrc_);
  gst_object_unref(pipeline_);
}

std::uint64_t GstAudioSink::running_time_ns() const {
  const GstClockTime now = gst_clock_get_time(clock_);
  const GstClockTime base = gst_element_get_base_time(pipeline_);
  return now > base ? now - base : 0;
}

std::uint64_t GstAudioSink::time_of(std::uint64_t sample) const {
  return origin_ns_ +
         gst_util_uint64_scale(sample - *first_sample_, GST_SECOND, format_.sample_rate);
}

void GstAudioSink::play(std::span<const std::byte> pcm, std::uint64_t first_sample,
                        std::chrono::nanoseconds picture_lead) {
  std::lock_guard lock(mutex_);
  if (finished_ || pcm.empty()) return;
  constexpr std::uint64_t delay_ns = std::chrono::nanoseconds(kSoundPlayoutDelay).count();
  const std::uint64_t now = running_time_ns();
  anchor(first_sample, now);
  if (first_sample < *first_sample_) return;
  const auto latency = static_cast<std::uint64_t>(latency_ns_);
  if (time_of(first_sample) + latency < now) {
    // Later than their time (the sink renders a sample its latency after its timestamp): the
    // clock moves on so that these play a delay from now, and no sooner than their picture.
    const auto lead = static_cast<std::uint64_t>(std::max<std::int64_t>(picture_lead.count(), 0));
    origin_ns_ += now + delay_ns + lead - time_of(first_sample) - latency;
    ++resyncs_;
    steer_frames_ = 0;  // the pictures' room so far was on the old clock
  }
  not_beyond_a_second(first_sample, now);
  push(pcm, first_sample);
}

void GstAudioSink::picture_ready(std::uint64_t sample, std::int64_t ready_ns) {
  std::lock_guard lock(mutex_);
  if (finished_ || !first_sample_ || sample < *first_sample_) return;
  constexpr std::int64_t delay = std::chrono::nanoseconds(kSoundPlayoutDelay).count();
  // The room this picture had: how long before it must be shown (a delay before its sound).
  const std::int64_t room = plays_at_locked(sample) - delay - ready_ns;
  steer_room_ns_ = steer_frames_ == 0 ? room : std::min(steer_room_ns_, room);
  // The first correction after half a second of pictures (the clock settles on the path within
  // the first second), then one a second.
  if (++steer_frames_ < (steered_ ? kSteerFrames : kSteerFrames / 2)) return;
  steered_ = true;
  // A dead band, so that the clock holds still through the pictures' ordinary jitter (a
  // decode's time varies by a few ms): it moves later only for a picture more than a few ms
  // late (shown that much behind its sound), earlier only when every picture of the second had
  // more than a frame's worth of room to spare, and either way to leave the margin.
  constexpr std::int64_t late_by = 5'000'000;
  constexpr std::int64_t margin = 10'000'000;
  constexpr std::int64_t spare = 30'000'000;
  if (steer_room_ns_ < -late_by) {
    // A picture was late: the sound moves on at once, so that it waits for the pictures.
    origin_ns_ += static_cast<std::uint64_t>(margin - steer_room_ns_);
    ++resyncs_;
  } else if (steer_room_ns_ > spare) {
    // Every picture had room: the sound moves earlier until the tightest of them would have had
    // just the margin (less latency, the pictures waiting less; never before the pipeline's
    // start).
    const std::int64_t moved = static_cast<std::int64_t>(origin_ns_) - (steer_room_ns_ - margin);
    origin_ns_ = static_cast<std::uint64_t>(std::max<std::int64_t>(moved, 0));
    ++resyncs_;
  }
  steer_frames_ = 0;
}

void GstAudioSink::anchor(std::uint64_t first_sample, std::uint64_t now) {
  if (first_sample_) return;
  first_sample_ = first_sample;
  origin_ns_ = now + std::chrono::nanoseconds(kSoundPlayoutDelay).count();
}

void GstAudioSink::not_beyond_a_second(std::uint64_t first_sample, std::uint64_t now) {
  // Samples due more than a second after the delay (a sender that skipped ahead): the clock
  // moves back so that they play a delay from now, or the sink would wait for them, silent.
  constexpr std::uint64_t delay_ns = std::chrono::nanoseconds(kSoundPlayoutDelay).count();
  if (time_of(first_sample) > now + delay_ns + GST_SECOND) {
    first_sample_ = first_sample;  // the clock starts again here
    origin_ns_ = now + delay_ns;
    ++resyncs_;
  }
}

void GstAudioSink::play_silence(std::uint64_t first_sample, std::uint64_t samples) {
  std::lock_guard lock(mutex_);
  if (finished_ || samples == 0) return;
  anchor(first_sample, running_time_ns());
  if (first_sample < *first_sample_) return;
  // At its own time, never moving the clock: a sink skips what is already late. At most a
  // second, the gap's end (the queue holds two): longer gaps are outages, after which the next
  // samples are late and move the clock on (a hostile sender's gap of hours costs a second).
  if (samples > format_.sample_rate) {
    first_sample += samples - format_.sample_rate;
    samples = format_.sample_rate;
  }
  not_beyond_a_second(first_sample, running_time_ns());
  while (samples > 0) {
    const std::uint64_t now = std::min<std::uint64_t>(samples, format_.sample_rate);
    silence_.assign(now * format_.bytes_per_sample(), std::byte{0});
    push(silence_, first_sample);
    first_sample += now;
    samples -= now;
  }
}

void GstAudioSink::push(std::span<const std::byte> pcm, std::uint64_t first_sample) {
  GstBuffer* buffer = gst_buffer_new_memdup(pcm.data(), pcm.size());
  const std::uint64_t samples = pcm.size() / format_.bytes_per_sample();
  GST_BUFFER_PTS(buffer) = time_of(first_sample);
  pushed_.push_back(Pushed{first_sample, samples, GST_BUFFER_PTS(buffer)});
  if (pushed_.size() > kPushesKept) pushed_.pop_front();
  GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(samples, GST_SECOND, format_.sample_rate);
  gst_app_src_push_buffer(GST_APP_SRC(appsrc_), buffer);  // takes it; drops the oldest when full
}

std::optional<std::int64_t> GstAudioSink::plays_at_ns(std::uint64_t sample) const {
  std::lock_guard lock(mutex_);
  if (!first_sample_ || sample < *first_sample_) return std::nullopt;
  return plays_at_locked(sample);
}

std::int64_t GstAudioSink::plays_at_locked(std::uint64_t sample) const {
  // The pipeline's latency (the sink renders a sample that much after its time), asked once a
  // second.
  const std::int64_t now_ns = steady_clock_ns();
  if (now_ns - latency_asked_ns_ > 1'000'000'000) {
    GstQuery* query = gst_query_new_latency();
    if (gst_element_query(pipeline_, query)) {
      gboolean live = FALSE;
      GstClockTime latency = 0;
      gst_query_parse_latency(query, &live, &latency, nullptr);
      latency_ns_ = latency;
    }
    gst_query_unref(query);
    latency_asked_ns_ = now_ns;
  }
  // A sample already pushed plays at the time it was pushed with, whatever the clock did since.
  std::uint64_t at = time_of(sample);
  for (auto it = pushed_.rbegin(); it != pushed_.rend(); ++it) {
    if (sample >= it->first_sample && sample < it->first_sample + it->samples) {
      at = it->pts +
           gst_util_uint64_scale(sample - it->first_sample, GST_SECOND, format_.sample_rate);
      break;
    }
  }
  const std::int64_t ahead =
      static_cast<std::int64_t>(at + latency_ns_) - static_cast<std::int64_t>(running_time_ns());
  return now_ns + ahead;
}

void GstAudioSink::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(appsrc_));
  GstBus* bus = gst_element_get_bus(pipeline_);
  // What is queued (a second at most) and the delay play out first.
  GstMessage* message =
      gst_bus_timed_pop_filtered(bus, GST_SECOND + GST_SECOND / 5,
                                 static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline_, GST_STATE_NULL);
}

}  // namespace hdstream
