#include "media/gst_runtime.hpp"

#include <mutex>

#include <fmt/format.h>
#include <gst/gst.h>

#include "media/media_error.hpp"

namespace hdstream {

void ensure_gstreamer() {
  static std::once_flag once;
  std::call_once(once, [] { gst_init(nullptr, nullptr); });
}

GstElement* gst_launch(const std::string& description) {
  ensure_gstreamer();
  GError* error = nullptr;
  // FATAL_ERRORS: a missing element is an error, not a silently truncated pipeline.
  GstElement* pipeline =
      gst_parse_launch_full(description.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &error);
  if (error) {
    std::string message = error->message;
    const bool missing = g_error_matches(error, GST_PARSE_ERROR, GST_PARSE_ERROR_NO_SUCH_ELEMENT);
    g_error_free(error);
    if (pipeline) gst_object_unref(pipeline);
    if (missing) {
      throw MediaError(fmt::format(
          "GStreamer: {}; install the plugin package that provides it (gst-inspect-1.0 lists "
          "what is installed)",
          message));
    }
    throw MediaError(fmt::format("GStreamer cannot parse '{}': {}", description, message));
  }
  return pipeline;
}

namespace {

std::string take_bus_error(GstElement* pipeline, GstClockTime wait_ns) {
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message = gst_bus_timed_pop_filtered(bus, wait_ns, GST_MESSAGE_ERROR);
  gst_object_unref(bus);
  if (!message) return {};
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  std::string text = fmt::format("{}: {}", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                                 error ? error->message : "unknown error");
  if (error) g_error_free(error);
  g_free(debug);
  gst_message_unref(message);
  return text;
}

}  // namespace

void gst_wait_started(GstElement* pipeline, int timeout_ms, std::string_view what) {
  GstState state = GST_STATE_NULL;
  const auto result = gst_element_get_state(pipeline, &state, nullptr,
                                            static_cast<GstClockTime>(timeout_ms) * GST_MSECOND);
  if (result == GST_STATE_CHANGE_FAILURE) {
    std::string detail = take_bus_error(pipeline, 0);
    throw MediaError(fmt::format("{}: the GStreamer pipeline failed to start{}{}", what,
                                 detail.empty() ? "" : ": ", detail));
  }
  if (result == GST_STATE_CHANGE_ASYNC) {
    throw MediaError(
        fmt::format("{}: the GStreamer pipeline did not start within {} ms", what, timeout_ms));
  }
}

}  // namespace hdstream
