#include "media/gst_audio_sink.hpp"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include "common/log.hpp"
#include "media/gst_runtime.hpp"
#include "media/media_error.hpp"

namespace hdstream {
namespace {

// How long after its first samples came the sound plays: the network's jitter and a decode's
// time, so that a frame's sound meets its picture.
constexpr std::uint64_t kPlayoutDelayNs = 100'000'000;

GstPadProbeReturn count_played(GstPad*, GstPadProbeInfo* info, gpointer user) {
  auto* played = static_cast<std::pair<std::atomic<std::uint64_t>*, std::uint32_t>*>(user);
  if (GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info)) {
    played->first->fetch_add(gst_buffer_get_size(buffer) / played->second,
                             std::memory_order_relaxed);
  }
  return GST_PAD_PROBE_OK;
}

GstElement* launch_with(const std::string& sink, const AudioFormat& format, std::size_t max_bytes) {
  // SDI's channels are discrete, not speaker positions: more than two are unpositioned, and the
  // device's sink takes what it can (audioconvert maps them onto its channels).
  const std::string unpositioned = format.channels > 2 ? ",channel-mask=(bitmask)0x0" : "";
  return gst_launch(fmt::format(
      "appsrc name=hdstream_audiosrc is-live=true format=time max-bytes={} block=false "
      "leaky-type=downstream caps=\"audio/x-raw,format={},rate={},channels={},"
      "layout=interleaved{}\" ! audioconvert ! audioresample ! {} name=hdstream_audio_out",
      max_bytes, format.bits == 16 ? "S16LE" : "S24LE", format.sample_rate, format.channels,
      unpositioned, sink));
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

bool reaches_paused(GstElement* pipeline) {
  if (gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) return false;
  GstState state;
  return gst_element_get_state(pipeline, &state, nullptr, 2 * GST_SECOND) !=
         GST_STATE_CHANGE_FAILURE;
}

}  // namespace

GstAudioSink::GstAudioSink(const std::string& device, const AudioFormat& format) : format_(format) {
  ensure_gstreamer();
  const std::size_t second = std::size_t{format.sample_rate} * format.bytes_per_sample();
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
  pipeline_ = launch_with(sink, format, second);
  if (!reaches_paused(pipeline_)) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    gst_object_unref(pipeline_);
    if (device != "auto") {
      throw MediaError(fmt::format("--audio-output {}: the sound device does not open", device));
    }
    // No sound device here (a server, a container): played in real time, heard nowhere.
    pipeline_ = launch_with("fakesink sync=true", format, second);
    description_ = "fakesink (no sound device)";
    reaches_paused(pipeline_);
  }
  appsrc_ = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_audiosrc");
  GstElement* out = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_audio_out");
  // autoaudiosink is a bin: count at its sink pad all the same.
  GstPad* pad = gst_element_get_static_pad(out, "sink");
  auto* probe = new std::pair<std::atomic<std::uint64_t>*, std::uint32_t>(
      &played_, format.bytes_per_sample());
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_played, probe, [](gpointer p) {
    delete static_cast<std::pair<std::atomic<std::uint64_t>*, std::uint32_t>*>(p);
  });
  gst_object_unref(pad);
  gst_object_unref(out);
  gst_element_set_state(pipeline_, GST_STATE_PLAYING);
}

GstAudioSink::~GstAudioSink() {
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  gst_object_unref(appsrc_);
  gst_object_unref(pipeline_);
}

void GstAudioSink::play(std::span<const std::byte> pcm, std::uint64_t first_sample) {
  if (finished_ || pcm.empty()) return;
  if (!first_sample_) {
    first_sample_ = first_sample;
    GstClock* clock = gst_element_get_clock(pipeline_);
    const GstClockTime now = clock ? gst_clock_get_time(clock) : 0;
    if (clock) gst_object_unref(clock);
    const GstClockTime base = gst_element_get_base_time(pipeline_);
    origin_ns_ = (now > base ? now - base : 0) + kPlayoutDelayNs;
  }
  if (first_sample < *first_sample_) return;
  GstBuffer* buffer = gst_buffer_new_memdup(pcm.data(), pcm.size());
  const std::uint64_t samples = pcm.size() / format_.bytes_per_sample();
  GST_BUFFER_PTS(buffer) = origin_ns_ + gst_util_uint64_scale(first_sample - *first_sample_,
                                                              GST_SECOND, format_.sample_rate);
  GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(samples, GST_SECOND, format_.sample_rate);
  gst_app_src_push_buffer(GST_APP_SRC(appsrc_), buffer);  // takes it; drops the oldest when full
}

void GstAudioSink::finish() {
  if (finished_) return;
  finished_ = true;
  gst_app_src_end_of_stream(GST_APP_SRC(appsrc_));
  GstBus* bus = gst_element_get_bus(pipeline_);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, 2 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (message) gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline_, GST_STATE_NULL);
}

}  // namespace hdstream
