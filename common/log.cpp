#include "common/log.hpp"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace hdstream {

std::shared_ptr<spdlog::logger> logger(const std::string& component) {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (auto existing = spdlog::get(component)) return existing;
  auto created = spdlog::stderr_color_mt(component);
  created->set_pattern("%H:%M:%S.%e %^%l%$ [%n] %v");
  return created;
}

void set_log_level(spdlog::level::level_enum level) { spdlog::set_level(level); }

}  // namespace hdstream
