#include "app/command_run.hpp"

#include "app/exit_codes.hpp"

namespace hdstream {

CommandRun::CommandRun(const CommonOptions& common, IoThreads threads)
    : common_(common), output_(common), runtime_(threads) {}

StatsRegistry& CommandRun::add_registry(Role role, std::size_t streams, std::string transport,
                                        RegistryOptions options) {
  return registries_.emplace_back(role, streams, std::move(transport), options).registry;
}

std::function<void()> CommandRun::part() {
  ++parts_;
  return [this] {
    if (--parts_ == 0) runtime_.shutdown();
  };
}

void CommandRun::finish() {
  if (finishing_.exchange(true)) return;
  if (stop_) stop_();
  runtime_.shutdown();
}

void CommandRun::finish_on_interrupt() {
  runtime_.on_interrupt([this] { finish(); });
}

void CommandRun::finish_after(std::chrono::nanoseconds duration) {
  if (duration.count() > 0) runtime_.deadline(duration, [this] { finish(); });
}

void CommandRun::start_stats() {
  start_stats(common_.interval);
}

void CommandRun::start_stats(std::chrono::nanoseconds interval) {
  runtime_.start_stats(interval, [this] {
    const bool json = common_.stats_format == StatsFormat::json;
    for (auto& entry : registries_) {
      const Snapshot snapshot = entry.registry.sample();
      if (entry.options.record) recorder_.add(snapshot);
      if (entry.options.on_sample) entry.options.on_sample(snapshot);
      if (entry.options.lines == Lines::always ||
          (entry.options.lines == Lines::json_only && json)) {
        output_.report().interval(snapshot);
      }
    }
  });
}

void CommandRun::run_with_frontends(bool gui, const std::string& title,
                                    const std::vector<std::string>& endpoints,
                                    const Pictures* pictures) {
  std::vector<RegistrySource> sources;
  for (std::size_t i = 0; i < registries_.size(); ++i) {
    sources.push_back({&registries_[i].registry, i < endpoints.size() ? endpoints[i] : ""});
  }
  hdstream::run_with_frontends(runtime_, common_, std::move(sources), gui, title, pictures);
}

int CommandRun::exit_code(const Summary& summary, bool runtime_failure) const {
  if (runtime_.interrupted()) return exit_code::interrupted;
  if (runtime_failure) return exit_code::runtime_failure;
  return summary.pass ? exit_code::success : exit_code::verdict_failed;
}

}  // namespace hdstream
