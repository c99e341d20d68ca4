// hdstream: live studio video feeds over long, fast networks.
//   hdstream demo
//   hdstream recv --listen :9000 --streams 5
//   hdstream --streams 5 --dest 127.0.0.1:9000 --rate 270M --duration 10s
#include <cstdio>
#include <system_error>

#include <fmt/format.h>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/runtime.hpp"
#include "common/endpoint.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media_module/media_module.hpp"
#include "presets/preset_store.hpp"
#include "transport/feed_request.hpp"

namespace {

// Configuration the user must fix: one line naming it, exit 2.
bool is_usage_error(const std::exception& error) {
  using namespace hdstream;
  return dynamic_cast<const UsageError*>(&error) || dynamic_cast<const PresetError*>(&error) ||
         dynamic_cast<const EndpointError*>(&error) ||
         dynamic_cast<const FeedRequestError*>(&error);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hdstream;
  const Command command = parse_command_line(argc, argv);
  if (const auto* exit_now = std::get_if<ExitNow>(&command)) return exit_now->code;

  try {
    return std::visit(
        [](const auto& options) -> int {
          using T = std::decay_t<decltype(options)>;
          if constexpr (std::is_same_v<T, ExitNow>) {
            return options.code;
          } else {
            set_log_level(spdlog::level::from_str(options.common.log_level));
            if constexpr (std::is_same_v<T, SendOptions>) return run_send(options);
            if constexpr (std::is_same_v<T, RecvOptions>) return run_recv(options);
            if constexpr (std::is_same_v<T, DemoOptions>) return run_demo(options);
            if constexpr (std::is_same_v<T, CheckOptions>) return run_check(options);
            if constexpr (std::is_same_v<T, PresetsOptions>) return run_presets(options);
            if constexpr (std::is_same_v<T, BenchOptions>) return run_bench(options);
            if constexpr (std::is_same_v<T, MonitorOptions>) return run_monitor(options);
          }
        },
        command);
  } catch (const std::exception& error) {
    if (is_usage_error(error)) {
      fmt::print(stderr, "hdstream: error: {} (see hdstream --help)\n", error.what());
      return exit_code::usage;
    }
    if (dynamic_cast<const std::system_error*>(&error) ||
        dynamic_cast<const MediaModuleError*>(&error)) {
      fmt::print(stderr, "hdstream: {}\n", error.what());
      return exit_code::runtime_failure;
    }
    fmt::print(stderr, "hdstream: unexpected error: {}\n", error.what());
    return exit_code::runtime_failure;
  }
}
