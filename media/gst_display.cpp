#include "media/gst_display.hpp"

#include <X11/Xlib.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "media/gst_runtime.hpp"
#include "media/media_error.hpp"

namespace hdstream {
namespace {

std::mutex& opening_mutex() {
  static std::mutex mutex;
  return mutex;
}

bool has_env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value;
}

const char* gst_format_of(Codec codec) {
  switch (codec) {
    case Codec::v210:
      return "I422_10LE";  // what libavcodec decodes v210 into
    case Codec::uyvy:
      return "UYVY";
    default:
      return "Y42B";  // DNxHD 220: 8-bit 4:2:2 planar
  }
}

// The sink element: a real fullscreen surface where the platform offers one.
std::string sink_for(bool fullscreen) {
  if (fullscreen && has_env("WAYLAND_DISPLAY")) return "waylandsink fullscreen=true sync=false";
  if (fullscreen && !has_env("DISPLAY")) return "kmssink sync=false";  // console: the whole screen
  return "autovideosink sync=false";
}

// Five 1080 windows do not fit one screen, and converting 1080 pictures for an X window costs
// more than decoding them: a window shows a half-size picture, scaled before conversion.
// Fullscreen (the projector) shows every pixel.
std::string window_scaling(const FeedDescriptor& feed) {
  if (feed.width <= 960) return "";
  return fmt::format("videoscale method=nearest-neighbour ! video/x-raw,width={},height={} ! ",
                     feed.width / 2, feed.height / 2);
}

}  // namespace

std::string display_problem(bool fullscreen) {
  prepare_x11_threads();
  if (!has_env("DISPLAY") && !has_env("WAYLAND_DISPLAY") && !fullscreen) {
    return "--output display: no DISPLAY or WAYLAND_DISPLAY (run under X/Wayland, use xvfb-run, "
           "or --output null)";
  }
  for (const char* element : {"appsrc", "videoconvert", "videoscale", "autovideosink"}) {
    if (!gst_element_available(element)) {
      return fmt::format(
          "--output display: GStreamer element '{}' is missing (install "
          "gstreamer1.0-plugins-base/-good and gstreamer1.0-x)",
          element);
    }
  }
  if (has_env("DISPLAY") && !gst_element_available("ximagesink") &&
      !gst_element_available("xvimagesink") && !gst_element_available("glimagesink")) {
    return "--output display: no X11 video sink (install gstreamer1.0-x)";
  }
  return {};
}

// Several windows open from several decode workers while the Qt panel draws on the main thread.
// Xlib is thread safe only once XInitThreads() has run before any other Xlib call in the process;
// the sinks call it themselves, but only while opening, which races with the panel and between
// two opening sinks.
void prepare_x11_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("DISPLAY")) XInitThreads();
  });
}

GstDisplay::GstDisplay(const FeedDescriptor& feed, const std::string& title, bool fullscreen)
    : feed_(feed) {
  prepare_x11_threads();  // a no-op after main() has called it
  std::lock_guard opening(opening_mutex());
  const std::string caps = fmt::format(
      "video/x-raw,format={},width={},height={},framerate={}/{},pixel-aspect-ratio=1/1",
      gst_format_of(feed.codec), feed.width, feed.height, feed.frame_rate_num, feed.frame_rate_den);
  // max-buffers=2 + block=true: a slow display holds the decode worker back, so the
  // back-pressure (and its counted drops) lands in the one decode queue in front.
  pipeline_ = gst_launch(
      fmt::format("appsrc name=hdstream_appsrc is-live=true format=time block=true max-buffers=2 "
                  "caps=\"{}\" ! queue max-size-buffers=2 ! {}videoconvert ! {}",
                  caps, fullscreen ? "" : window_scaling(feed), sink_for(fullscreen)));
  appsrc_ = gst_bin_get_by_name(GST_BIN(pipeline_), "hdstream_appsrc");
  gst_object_set_name(GST_OBJECT(pipeline_), title.c_str());

  GstCaps* pool_caps = gst_caps_from_string(caps.c_str());
  GstVideoInfo info;
  gst_video_info_from_caps(&info, pool_caps);
  pool_ = gst_video_buffer_pool_new();
  GstStructure* config = gst_buffer_pool_get_config(pool_);
  gst_buffer_pool_config_set_params(config, pool_caps, static_cast<guint>(info.size), 4, 8);
  gst_buffer_pool_set_config(pool_, config);
  gst_buffer_pool_set_active(pool_, TRUE);
  gst_caps_unref(pool_caps);

  // A live pipeline completes its move to PLAYING only when the first picture reaches the
  // sink, so only an outright failure (no X server, sink refused) can be seen here; later
  // errors surface in show().
  try {
    if (gst_element_set_state(pipeline_, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
      gst_wait_started(pipeline_, 0, "display");  // throws with the bus's error message
    }
  } catch (...) {
    close();
    gst_buffer_pool_set_active(pool_, FALSE);
    gst_object_unref(pool_);
    gst_object_unref(appsrc_);
    gst_object_unref(pipeline_);
    throw;
  }
}

GstDisplay::~GstDisplay() {
  close();
  gst_buffer_pool_set_active(pool_, FALSE);
  gst_object_unref(pool_);
  gst_object_unref(appsrc_);
  gst_object_unref(pipeline_);
}

void GstDisplay::show(const Picture& picture) {
  if (closed_) return;
  GstBuffer* buffer = nullptr;
  if (gst_buffer_pool_acquire_buffer(pool_, &buffer, nullptr) != GST_FLOW_OK) {
    throw MediaError("display: no buffer (display closing)");
  }
  GstVideoInfo info;
  GstCaps* caps = gst_app_src_get_caps(GST_APP_SRC(appsrc_));
  gst_video_info_from_caps(&info, caps);
  gst_caps_unref(caps);
  GstVideoFrame frame;
  if (gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE)) {
    for (int p = 0;
         p < picture.plane_count && p < static_cast<int>(GST_VIDEO_FRAME_N_PLANES(&frame)); ++p) {
      auto* dest = static_cast<std::uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
      const int dest_stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
      for (int y = 0; y < picture.rows[p]; ++y) {
        std::memcpy(dest + static_cast<std::ptrdiff_t>(y) * dest_stride,
                    picture.data[p] + static_cast<std::ptrdiff_t>(y) * picture.stride_bytes[p],
                    static_cast<std::size_t>(std::min(picture.row_bytes[p], dest_stride)));
      }
    }
    gst_video_frame_unmap(&frame);
  }
  const GstClockTime period =
      gst_util_uint64_scale(GST_SECOND, feed_.frame_rate_den, feed_.frame_rate_num);
  GST_BUFFER_PTS(buffer) = shown_ * period;
  GST_BUFFER_DURATION(buffer) = period;
  ++shown_;
  if (gst_app_src_push_buffer(GST_APP_SRC(appsrc_), buffer) != GST_FLOW_OK) {
    throw MediaError("display: the video sink stopped (window closed?)");
  }
  GstBus* bus = gst_element_get_bus(pipeline_);
  GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  if (error) {
    GError* detail = nullptr;
    gst_message_parse_error(error, &detail, nullptr);
    std::string text = detail ? detail->message : "error";
    if (detail) g_error_free(detail);
    gst_message_unref(error);
    throw MediaError(fmt::format("display: {}", text));
  }
}

void GstDisplay::close() {
  if (closed_.exchange(true)) return;
  gst_element_set_state(pipeline_, GST_STATE_NULL);
}

}  // namespace hdstream
