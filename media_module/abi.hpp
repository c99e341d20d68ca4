// What the binary and its media module must agree on before one calls the other: the build they
// come from (version and commit, from CMake) and the size of every type that crosses between
// them. A module of another build refuses to load (media_module/loader.cpp).
//   if (std::string_view(abi) != media_module_abi()) return nullptr;
#pragma once

#include <string>

#include <fmt/format.h>

#include "acceptance/acceptance_result.hpp"
#include "pipeline/feed_media.hpp"
#include "pipeline/media_output.hpp"
#include "pipeline/media_sources.hpp"
#include "report/link_report.hpp"
#include "stats/counters.hpp"
#include "stats/registry.hpp"
#include "transport/transport.hpp"

namespace hdstream {

inline std::string media_module_abi() {
  return fmt::format("{} {}/{}/{}/{}/{}/{}/{}/{}/{}/{}", HDSTREAM_MEDIA_MODULE_BUILD, sizeof(Hello),
                     sizeof(FeedDescriptor), sizeof(FeedSource), sizeof(MediaOutput),
                     sizeof(SenderOptions), sizeof(ReceiverOptions), sizeof(StreamCounters),
                     sizeof(StatsRegistry), sizeof(LinkReportInput), sizeof(AcceptanceResult));
}

}  // namespace hdstream
