// GStreamer set-up shared by every media component: initialised once, element checks that name
// the package to install, and pipeline launch with GError turned into MediaError.
//   GstElement* pipeline = gst_launch("videotestsrc ! appsink name=out");  // throws MediaError
#pragma once

#include <string>
#include <string_view>

typedef struct _GstElement GstElement;

namespace hdstream {

// Calls gst_init once per process; thread safe.
void ensure_gstreamer();

// Parses a gst-launch description. Throws MediaError naming a missing element and how to find
// the plugin that provides it. The caller owns the returned pipeline (gst_object_unref).
GstElement* gst_launch(const std::string& description);

// Waits up to `timeout_ms` for the pipeline to reach its target state; throws MediaError with
// the first error message posted on the bus if it fails.
void gst_wait_started(GstElement* pipeline, int timeout_ms, std::string_view what);

}  // namespace hdstream
