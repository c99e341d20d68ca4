// `hdstream check --acceptance`: the link acceptance test (ITU-T Y.1564's service configuration
// test, a ramp of steps, then its service performance test, a soak at the committed rate), with
// the planned feeds' format, chunking and transport, judged against the destination's criteria.
#include <unistd.h>

#include <atomic>
#include <csignal>

#include <algorithm>
#include <cmath>
#include <iostream>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "acceptance/acceptance_result.hpp"
#include "acceptance/criteria.hpp"
#include "acceptance/phase_recorder.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/link_checks.hpp"
#include "app/probe_run.hpp"
#include "common/clock.hpp"
#include "common/provenance.hpp"
#include "common/units.hpp"
#include "media_module/media_module.hpp"

namespace hdstream {
namespace {

using Seconds = std::chrono::duration<double>;

struct PhaseSpec {
  std::string name;  // "step 1 of 4", "soak"
  double percent = 100;
  std::chrono::nanoseconds duration{};  // measured, after the warm-up
  bool soak = false;
  std::chrono::nanoseconds warm_up{};
  std::chrono::nanoseconds closing{};  // its sessions' end, after the length: closing_time()
  std::chrono::nanoseconds length() const { return warm_up + duration; }  // what is sent
  std::chrono::nanoseconds wall() const { return length() + closing; }    // what it takes
};

// Each phase opens new sessions: a connection's slow start, some round trips of the planned or
// the measured RTT (the larger), is not the path.
std::chrono::nanoseconds warm_up(const SendPlan& plan, const std::vector<EndpointProbe>& probes) {
  std::chrono::nanoseconds rtt = plan.options.expected_rtt;
  for (const auto& probe : probes) {
    if (!probe.rtt_ms) continue;
    const auto measured =
        std::chrono::duration<double, std::milli>(*probe.rtt_ms / probe.handshake_round_trips);
    rtt = std::max(rtt, std::chrono::duration_cast<std::chrono::nanoseconds>(measured));
  }
  return std::clamp<std::chrono::nanoseconds>(10 * rtt, std::chrono::seconds(1),
                                              std::chrono::seconds(10));
}

// "path A: soak" when the destination has two paths.
std::string labelled(const std::string& label, const std::string& name) {
  return label.empty() ? name : label + ": " + name;
}

// What a phase takes after it has sent: every feed's END crosses the path and the receiver's
// last report comes back. SRT hands each over at its play time (send time + the latency budget),
// so twice the budget; TCP a round trip.
std::chrono::nanoseconds closing_time(const SendPlan& plan) {
  const auto& o = plan.options;
  if (o.transport != TransportKind::srt) return o.expected_rtt;
  return 2 * latency_budget(TransportKind::srt, o.latency, o.latency_given, o.expected_rtt) +
         o.expected_rtt;
}

std::vector<PhaseSpec> phases_of(const AcceptanceOptions& a, std::chrono::nanoseconds warm,
                                 std::chrono::nanoseconds closing, const std::string& label) {
  std::vector<PhaseSpec> specs;
  for (std::size_t i = 0; i < a.steps_percent.size(); ++i) {
    specs.push_back(
        {.name = labelled(label, fmt::format("step {} of {}", i + 1, a.steps_percent.size())),
         .percent = a.steps_percent[i],
         .duration = a.step_duration,
         .warm_up = warm,
         .closing = closing});
  }
  specs.push_back({.name = labelled(label, "soak"),
                   .percent = 100,
                   .duration = a.soak,
                   .soak = true,
                   .warm_up = warm,
                   .closing = closing});
  return specs;
}

// A destination with two paths (two-path protection) is accepted path by path: each is a
// link of its own, and a protected feed's far end merges the two, so neither would be measured.
struct PathPlan {
  std::string label;  // "path A", "path B"; empty with one path
  SendPlan plan;
};

std::vector<PathPlan> paths_of(const SendPlan& plan) {
  SendPlan a = plan;
  a.endpoints_b.clear();
  a.source_b.clear();
  if (plan.endpoints_b.empty()) return {{"", a}};
  SendPlan b = a;
  b.endpoints = plan.endpoints_b;
  b.source_a = plan.source_b;
  return {{"path A", a}, {"path B", b}};
}

// The feeds as the acceptance sends them: synthetic frames of the planned format's size and
// frame rate (a media feed's pictures would tell the link nothing more, and a ramp needs frames
// it can size), on the planned transport, chunking and paths.
SendPlan acceptance_plan(SendPlan plan) {
  plan.options.rate_bps = plan.rate_per_feed_bps();
  plan.format.feed.codec = Codec::synthetic;
  plan.format.feed.bit_rate_bps = plan.options.rate_bps;
  plan.format.default_source = "synthetic";
  plan.options.format = "synthetic";
  plan.options.sources.clear();
  return plan;
}

SlaPreset overlay(SlaPreset base, const SlaPreset& flags) {
  auto take = [](auto& into, const auto& from) {
    if (from) into = from;
  };
  if (flags.min_rate_fraction || flags.min_rate_bps) {
    base.min_rate_fraction = flags.min_rate_fraction;
    base.min_rate_bps = flags.min_rate_bps;
  }
  take(base.max_delay, flags.max_delay);
  take(base.max_delay_variation, flags.max_delay_variation);
  take(base.max_loss_ratio, flags.max_loss_ratio);
  take(base.min_availability, flags.min_availability);
  take(base.severely_errored, flags.severely_errored);
  return base;
}

// Frame delay one way when the ends share a clock: told so (PTP, chrony), or every receiver is
// this host (a loopback address). Not on srt: libsrt hands each packet over at its send time
// plus the latency budget, so an srt frame's arrival measures the budget, not the path.
DelayBasis delay_basis(const AcceptanceOptions& a, const SendPlan& plan) {
  if (plan.options.transport == TransportKind::srt) return DelayBasis::half_rtt;
  if (a.one_way_delay) return DelayBasis::one_way;
  const bool local = std::all_of(plan.endpoints.begin(), plan.endpoints.end(), [](const auto& e) {
    return e.host == "localhost" || e.host == "::1" || e.host.starts_with("127.");
  });
  return local ? DelayBasis::one_way : DelayBasis::half_rtt;
}

// SIGINT/SIGTERM while no phase runs (pre-flight checks, between phases): noted, so the run
// stops at the next phase and still writes its report. While a phase runs its runtime has the
// signals (and restores their default action when it ends: arm() again after each phase).
std::atomic<bool> interrupted_between_phases{false};

void arm_interrupt() {
  struct sigaction action {};
  action.sa_handler = [](int) { interrupted_between_phases.store(true); };
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

// What the operator sees while it runs: on a terminal one line rewritten each second and one
// line per phase's result; otherwise (a pipe, a file, --stats json) a JSON progress line each
// second, and the phase results as text lines unless the stats are JSON.
class Progress {
 public:
  Progress(bool json_stats, std::chrono::nanoseconds total)
      : terminal_(!json_stats && ::isatty(STDOUT_FILENO)),
        json_(!terminal_),
        text_results_(!json_stats),
        total_s_(Seconds(total).count()) {}

  void tick(const PhaseSpec& spec, double done_before_s, const Snapshot& s) {
    if (s.t < next_s_) return;
    next_s_ = std::floor(s.t) + 1;
    std::uint64_t lost = 0;
    for (const auto& stream : s.streams) lost += stream.drops + stream.far_end.drops;
    const double phase_s = Seconds(spec.length()).count();
    const double remaining_s = std::max(0.0, total_s_ - done_before_s - s.t);
    // Where the phase's measured time stands (its by_second axis): seconds since its first
    // frame, less the warm-up; negative while warming up.
    std::int64_t first_ns = 0;
    for (const auto& stream : s.streams) {
      if (stream.first_frame_ns > 0 && (first_ns == 0 || stream.first_frame_ns < first_ns)) {
        first_ns = stream.first_frame_ns;
      }
    }
    const double measured_s = first_ns > 0 ? static_cast<double>(wall_clock_ns() - first_ns) / 1e9 -
                                                 Seconds(spec.warm_up).count()
                                           : -Seconds(spec.warm_up).count();
    const char* verdict = measured_s < 0 ? "warming up" : lost == 0 ? "pass so far" : "frames lost";
    if (json_) {
      std::cout << nlohmann::ordered_json{{"type", "acceptance_progress"},
                                          {"phase", spec.name},
                                          {"percent", spec.percent},
                                          {"elapsed_s", std::round(s.t * 10) / 10},
                                          {"measured_s", std::round(measured_s * 10) / 10},
                                          {"phase_s", phase_s},
                                          {"remaining_s", std::round(remaining_s)},
                                          {"rate_mbps", std::round(s.aggregate_mbps() * 10) / 10},
                                          {"frames_lost", lost},
                                          {"verdict", verdict}}
                       .dump()
                << std::endl;
    } else if (terminal_) {
      fmt::print(std::cout,
                 "\r{} ({:.0f} %): {:.0f} of {:.0f} s, {:.1f} Mbps, {} lost, {}, {} left   ",
                 spec.name, spec.percent, s.t, phase_s, s.aggregate_mbps(), lost, verdict,
                 format_duration(std::chrono::seconds(static_cast<long>(remaining_s))));
      std::cout.flush();
    }
  }

  void phase_done(const AcceptancePhase& phase) {
    next_s_ = 0;
    if (!text_results_) return;
    const PhaseFigures& f = phase.figures;
    fmt::print(std::cout,
               "{}{} ({:.0f} %): {} — {:.1f} of {:.1f} Mbps, delay {:.2f} ms ({}), variation p99 "
               "{:.2f} ms, {} of {} frames lost\n",
               terminal_ ? "\r" : "", f.name, phase.percent, phase.pass ? "PASS" : "FAIL",
               f.rate_mbps, f.offered_mbps, f.delay_ms, to_string(f.delay_basis),
               f.delay_variation_ms.p99, f.frames_lost, f.frames_offered);
    for (const auto& r : phase.results) {
      if (!r.pass)
        fmt::print(std::cout, "    FAIL {}: {} (needs {})\n", r.name, r.measured, r.threshold);
    }
  }

 private:
  bool terminal_;
  bool json_;
  bool text_results_;
  double total_s_;
  double next_s_ = 0;
};

AcceptancePhase run_phase(const CheckOptions& options, const SendPlan& base, const PhaseSpec& spec,
                          const AcceptanceCriteria& criteria, DelayBasis basis, Progress& progress,
                          double done_before_s, bool& interrupted,
                          std::vector<ReceiverInfo>& receivers) {
  SendPlan plan = base;
  plan.options.rate_bps = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(base.options.rate_bps) * spec.percent / 100));
  const FeedDescriptor& feed = plan.format.feed;
  const double frame_rate = static_cast<double>(feed.frame_rate_num) / feed.frame_rate_den;
  ProbeRun run(options.common, plan, spec.length());
  PhaseRecorder recorder(run.stats(), frame_rate, Seconds(spec.warm_up).count());
  run.on_sample([&](const Snapshot& s) {
    recorder.tick(s);
    progress.tick(spec, done_before_s, s);
  });
  const Snapshot last = run.run();
  interrupted = run.interrupted();
  for (std::size_t i = 0; i < last.streams.size() && i < plan.endpoints.size(); ++i) {
    note_receiver(receivers, plan.endpoints[i].to_string(), last.streams[i].far_end.receiver);
  }
  PhaseInput input{.name = spec.name,
                   .offered_mbps = plan.planned_mbps(),
                   .delay_basis = basis,
                   .warm_up_s = Seconds(spec.warm_up).count(),
                   .feeds = recorder.finish(last)};
  if (plan.options.transport == TransportKind::srt) {
    input.variation_not_judged =
        "libsrt delivers each packet at its send time plus the latency budget";
  }
  AcceptancePhase phase{.figures = measure_phase(input, criteria.severe_loss_fraction),
                        .percent = spec.percent,
                        .soak = spec.soak,
                        .interrupted = interrupted};
  phase.results = evaluate(criteria, phase.figures, spec.soak);
  phase.pass = all_pass(phase.results);
  return phase;
}

void print_result(const AcceptanceResult& result, bool json) {
  if (json) {
    nlohmann::ordered_json doc = acceptance_json(result);
    for (auto& phase : doc["phases"]) phase.erase("by_second");  // in the report, not the line
    std::cout << doc.dump() << std::endl;
    return;
  }
  fmt::print(std::cout, "acceptance of {}: {}{}\n", result.destination,
             result.pass ? "PASS" : "FAIL", result.complete ? "" : " (incomplete: interrupted)");
}

void write_report(const std::filesystem::path& path, const AcceptanceResult& result) {
  if (path.extension() == ".json") {
    std::ofstream out(path);
    out << acceptance_json(result).dump(2) << '\n';
    out.close();  // a full disk shows at the last flush
    if (!out) throw std::runtime_error(fmt::format("--report: cannot write '{}'", path.string()));
    return;
  }
  media_module().write_acceptance_report(path, result);
}

}  // namespace

int run_acceptance(const CheckOptions& options) {
  const AcceptanceOptions& a = options.acceptance;
  const SendPlan plan =
      acceptance_plan(plan_send(options.send, load_presets(options.common.config_file)));
  const bool json = options.common.stats_format == StatsFormat::json;
  if (options.report && options.report->extension() != ".json") media_module();
  arm_interrupt();

  AcceptanceResult result{
      .destination = plan.destination.name,
      .started_utc = utc_now(),
      .host = host_name(),
      .parameters = describe(plan),
      .criteria = criteria_from(overlay(plan.destination.sla, a.sla),
                                static_cast<double>(plan.options.rate_bps)),
      .sign_off = {.engineer = a.engineer, .link_id = a.link_id, .text = a.sign_off}};
  result.parameters.emplace_back("ramp steps", fmt::format("{} % of the planned rate, {} each",
                                                           fmt::join(a.steps_percent, ", "),
                                                           format_duration(a.step_duration)));
  result.parameters.emplace_back("soak", format_duration(a.soak));

  // Each path's pre-flight checks, then its phases; what the whole run will take.
  struct PathRun {
    PathPlan path;
    bool reachable = false;
    std::vector<PhaseSpec> specs;
  };
  std::vector<PathRun> runs;
  std::chrono::nanoseconds total{};
  for (PathPlan& path : paths_of(plan)) {
    for (const auto& endpoint : path.plan.endpoints) {
      note_receiver(result.receivers, endpoint.to_string());
    }
    const auto probes = probe_endpoints(path.plan, std::chrono::seconds(3));
    for (const auto& item : link_checks(path.plan, probes)) {
      result.path.push_back(
          {.name = labelled(path.label, item.name), .measured = item.detail, .ok = item.ok});
    }
    PathRun run{.path = std::move(path),
                .reachable = std::all_of(probes.begin(), probes.end(),
                                         [](const auto& p) { return p.reachable; })};
    run.specs =
        phases_of(a, warm_up(run.path.plan, probes), closing_time(run.path.plan), run.path.label);
    for (const auto& spec : run.specs) total += spec.wall();
    runs.push_back(std::move(run));
  }
  result.parameters.emplace_back("warm-up", format_duration(runs.front().specs.front().warm_up) +
                                                " before each phase, not measured");

  Progress progress(json, total);
  bool interrupted = false;
  bool reachable = true;
  std::size_t planned = 0;
  double done_s = 0;
  for (const PathRun& run : runs) {
    planned += run.specs.size();
    reachable = reachable && run.reachable;
    const DelayBasis basis = delay_basis(a, run.path.plan);
    for (const auto& spec : run.specs) {
      interrupted = interrupted || interrupted_between_phases.load();
      if (!run.reachable || interrupted) break;
      AcceptancePhase phase = run_phase(options, run.path.plan, spec, result.criteria, basis,
                                        progress, done_s, interrupted, result.receivers);
      arm_interrupt();
      done_s += Seconds(spec.wall()).count();
      // Cut short before anything was measured (in its warm-up): nothing to report.
      if (phase.interrupted && phase.figures.frames_offered == 0) break;
      progress.phase_done(phase);
      result.phases.push_back(std::move(phase));
    }
  }
  interrupted = interrupted || interrupted_between_phases.load();
  result.complete = reachable && !interrupted && result.phases.size() == planned;
  result.pass = acceptance_verdict(result);
  if (!reachable && !json) {
    for (const auto& fact : result.path) {
      if (!fact.ok) fmt::print(std::cout, "FAIL {}: {}\n", fact.name, fact.measured);
    }
  }
  print_result(result, json);
  if (options.report) write_report(*options.report, result);
  if (interrupted) return exit_code::interrupted;
  return result.pass ? exit_code::success : exit_code::verdict_failed;
}

}  // namespace hdstream
