// One logger per component, all writing to stderr through spdlog.
//   auto log = hdstream::logger("tcp");  log->warn("stream {}: {}", id, why);
#pragma once

#include <memory>
#include <string>

#include <spdlog/spdlog.h>

namespace hdstream {

// Returns (creating on first use) the logger for a component; thread safe.
std::shared_ptr<spdlog::logger> logger(const std::string& component);

// Sets the level of every logger, present and future ("info", "debug", "warn", ...).
void set_log_level(spdlog::level::level_enum level);

}  // namespace hdstream
