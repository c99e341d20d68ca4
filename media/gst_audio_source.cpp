#include "media/gst_audio_source.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include "common/log.hpp"
#include "media/gst_runtime.hpp"
#include "media/media_error.hpp"

namespace hdstream {

GstAudioSource::GstAudioSource(const std::string& description, const AudioFormat& format)
    : format_(format), ring_limit_(std::size_t{format.sample_rate} * format.bytes_per_sample()) {
  const std::string launch = fmt::format(
      "{} ! audioconvert ! audioresample ! capsfilter caps=\"audio/x-raw,format={},rate={},"
      "channels={},layout=interleaved\" ! appsink name=hdstream_audiosink max-buffers=4 "
      "drop=false sync=false emit-signals=false",
      description, format.bits == 16 ? "S16LE" : "S24LE", format.sample_rate, format.channels);
  pipeline_ = gst_launch(launch);
  appsink_ = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_audiosink");
  try {
    if (!appsink_) throw MediaError("GStreamer audio source: no appsink in the pipeline");
    gst_element_set_state(pipeline_, GST_STATE_PAUSED);
    gst_wait_started(pipeline_, 10'000, "audio source");
  } catch (...) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    if (appsink_) gst_object_unref(appsink_);
    gst_object_unref(pipeline_);
    throw;
  }
}

GstAudioSource::~GstAudioSource() {
  stop();
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  gst_object_unref(appsink_);
  gst_object_unref(pipeline_);
}

void GstAudioSource::start(std::uint32_t samples) {
  gst_element_set_state(pipeline_, GST_STATE_PLAYING);
  thread_ = std::jthread([this] { run(); });
  const std::size_t wanted = std::size_t{samples} * format_.bytes_per_sample();
  std::unique_lock lock(mutex_);
  if (!changed_.wait_for(lock, std::chrono::seconds(10),
                         [&] { return ring_.size() >= wanted || ended_; })) {
    logger("source")->warn("no sound from the audio source after 10 s");
  }
}

void GstAudioSource::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GstAudioSource::run() {
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(appsink_), 100 * GST_MSECOND);
    if (!sample) {
      if (gst_app_sink_is_eos(GST_APP_SINK(appsink_))) break;
      if (GstMessage* error = pending_error()) {  // a device gone, a source failing
        GError* detail = nullptr;
        gst_message_parse_error(error, &detail, nullptr);
        logger("source")->error("audio source: {}", detail ? detail->message : "error");
        if (detail) g_error_free(detail);
        gst_message_unref(error);
        break;
      }
      continue;
    }
    GstMapInfo map;
    GstBuffer* buffer = gst_sample_get_buffer(sample);
    if (buffer && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
      const auto* bytes = reinterpret_cast<const std::byte*>(map.data);
      std::unique_lock lock(mutex_);
      // A full ring holds the source back (and, for a live one, GStreamer drops); an empty one
      // takes any buffer, however long.
      changed_.wait(lock, [&] {
        return stopping_ || ring_.empty() || ring_.size() + map.size <= ring_limit_;
      });
      if (!stopping_) ring_.insert(ring_.end(), bytes, bytes + map.size);
      gst_buffer_unmap(buffer, &map);
    }
    gst_sample_unref(sample);
    changed_.notify_all();
  }
  std::lock_guard lock(mutex_);
  ended_ = true;
  changed_.notify_all();
}

GstMessage* GstAudioSource::pending_error() const {
  GstBus* bus = gst_element_get_bus(pipeline_);
  GstMessage* message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  return message;
}

void GstAudioSource::keep_newest(std::uint32_t samples) {
  {
    std::lock_guard lock(mutex_);
    const std::size_t keep = std::size_t{samples} * format_.bytes_per_sample();
    if (ring_.size() > keep) {
      ring_.erase(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(ring_.size() - keep));
    }
  }
  changed_.notify_all();
}

void GstAudioSource::read(std::uint32_t samples, std::vector<std::byte>& out) {
  const std::size_t wanted = std::size_t{samples} * format_.bytes_per_sample();
  const std::size_t at = out.size();
  out.resize(at + wanted, std::byte{0});
  {
    std::lock_guard lock(mutex_);
    // Whole sample frames only, so that channels never slip.
    const std::size_t have =
        std::min(wanted, ring_.size()) / format_.bytes_per_sample() * format_.bytes_per_sample();
    std::copy_n(ring_.begin(), have, out.begin() + static_cast<std::ptrdiff_t>(at));
    ring_.erase(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(have));
    missing_ += (wanted - have) / format_.bytes_per_sample();
  }
  changed_.notify_all();
}

std::size_t GstAudioSource::buffered_samples() const {
  std::lock_guard lock(mutex_);
  return ring_.size() / format_.bytes_per_sample();
}

bool GstAudioSource::ended() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

std::uint64_t GstAudioSource::missing_samples() const {
  std::lock_guard lock(mutex_);
  return missing_;
}

}  // namespace hdstream
