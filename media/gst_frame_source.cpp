#include "media/gst_frame_source.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "common/log.hpp"
#include "media/formats.hpp"
#include "media/gst_runtime.hpp"
#include "media/media_error.hpp"

namespace hdstream {
namespace {

std::string pending_end(GstElement* pipeline) {
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message =
      gst_bus_pop_filtered(bus, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  gst_object_unref(bus);
  if (!message) return {};
  std::string why = "end of stream";
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError* error = nullptr;
    gst_message_parse_error(message, &error, nullptr);
    why = fmt::format("{}: {}", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                      error ? error->message : "error");
    if (error) g_error_free(error);
  }
  gst_message_unref(message);
  return why;
}

}  // namespace

GstFrameSource::GstFrameSource(const std::string& description, const FeedDescriptor& feed)
    : feed_(feed) {
  // videorate and videoscale make any capture fit the feed; they pass through when it already
  // does (videotestsrc negotiates the caps directly).
  const std::string launch = fmt::format(
      "{} ! videoconvert ! videoscale ! videorate ! capsfilter caps=\"{}\" ! appsink "
      "name=hdstream_appsink max-buffers=2 drop=false sync=false emit-signals=false",
      description, raw_caps_for(feed));
  pipeline_ = gst_launch(launch);
  appsink_ = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_appsink");
  try {
    if (!appsink_) throw MediaError("GStreamer source: no appsink in the pipeline");
    gst_element_set_state(pipeline_, GST_STATE_PAUSED);
    gst_wait_started(pipeline_, 10'000, "source");
    if (auto why = pending_end(pipeline_); !why.empty()) {
      throw MediaError(fmt::format("source stopped before its first frame: {}", why));
    }
  } catch (...) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    if (appsink_) gst_object_unref(appsink_);
    gst_object_unref(pipeline_);
    throw;
  }
}

GstFrameSource::~GstFrameSource() {
  stop();
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  gst_object_unref(appsink_);
  gst_object_unref(pipeline_);
}

void GstFrameSource::start(OnFrame on_frame, OnEnd on_end) {
  on_frame_ = std::move(on_frame);
  on_end_ = std::move(on_end);
  gst_element_set_state(pipeline_, GST_STATE_PLAYING);
  thread_ = std::jthread([this] { run(); });
}

void GstFrameSource::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void GstFrameSource::run() {
  const std::size_t packed_bytes = raw_frame_bytes(feed_);
  std::vector<std::byte> packed(packed_bytes);
  std::string why;
  while (!stopping_) {
    GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(appsink_), 100 * GST_MSECOND);
    if (!sample) {
      if (gst_app_sink_is_eos(GST_APP_SINK(appsink_))) {
        why = "end of stream";
        break;
      }
      if (why = pending_end(pipeline_); !why.empty()) break;
      continue;
    }
    GstVideoInfo info;
    GstVideoFrame frame;
    bool keep_going = true;
    if (gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
        gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
      Picture picture;
      picture.width = GST_VIDEO_FRAME_WIDTH(&frame);
      picture.height = GST_VIDEO_FRAME_HEIGHT(&frame);
      picture.plane_count = static_cast<int>(GST_VIDEO_FRAME_N_PLANES(&frame));
      picture.layout = packed_bytes ? PixelLayout::invalid : PixelLayout::yuv422p8;
      for (int p = 0; p < picture.plane_count; ++p) {
        picture.data[p] = static_cast<const std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
        picture.stride_bytes[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        picture.rows[p] = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);
        picture.row_bytes[p] =
            GST_VIDEO_FRAME_COMP_WIDTH(&frame, p) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, p);
      }
      if (packed_bytes) {
        // Wire layout: rows at the canonical stride, whatever padding the source used.
        if (feed_.codec == Codec::uyvy) picture.layout = PixelLayout::uyvy422;
        const std::size_t row = packed_bytes / feed_.height;
        for (int y = 0; y < feed_.height; ++y) {
          std::memcpy(
              packed.data() + row * static_cast<std::size_t>(y),
              picture.data[0] + static_cast<std::size_t>(y) * picture.stride_bytes[0],
              std::min<std::size_t>(row, static_cast<std::size_t>(picture.stride_bytes[0])));
        }
      }
      keep_going = on_frame_(picture, packed);
      gst_video_frame_unmap(&frame);
    }
    gst_sample_unref(sample);
    if (!keep_going) break;
  }
  if (stopping_ || why.empty()) why = "stopped";
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  if (why != "stopped") logger("source")->info("GStreamer source ended: {}", why);
  if (on_end_) on_end_(why);
}

}  // namespace hdstream
