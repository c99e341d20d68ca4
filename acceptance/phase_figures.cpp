#include "acceptance/phase_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hdstream {
namespace {

double median_of(std::vector<double>& values) {
  return values.empty() ? 0 : percentiles(values).p50;
}

// Which of a feed's frames arrived, by sequence number; samples beyond the schedule (a
// receiver's mistake or a stranger's) are ignored rather than trusted.
std::vector<bool> delivered_map(const FeedRecord& feed) {
  std::vector<bool> arrived(feed.frames_offered, false);
  for (const auto& sample : feed.delivered) {
    if (sample.frame_seq < arrived.size()) arrived[sample.frame_seq] = true;
  }
  return arrived;
}

// The second of the phase a frame is due in.
std::size_t second_of(std::uint64_t seq, double frame_rate) {
  return static_cast<std::size_t>(std::floor(static_cast<double>(seq) / frame_rate));
}

}  // namespace

std::string_view to_string(DelayBasis basis) {
  return basis == DelayBasis::one_way ? "one way" : "half the RTT";
}

Percentiles percentiles(std::vector<double>& values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {
    const auto n = static_cast<double>(values.size());
    const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n))) - 1;
    return values[std::min(index, values.size() - 1)];
  };
  return {.p50 = rank(0.50), .p95 = rank(0.95), .p99 = rank(0.99), .max = values.back()};
}

PhaseFigures measure_phase(const PhaseInput& input, double severe_loss_fraction) {
  PhaseFigures f{
      .name = input.name, .offered_mbps = input.offered_mbps, .delay_basis = input.delay_basis};
  f.variation_not_judged = input.variation_not_judged;
  std::vector<double> variation_ms;
  std::vector<double> delay_ms;
  std::vector<double> rtt_half_ms;
  std::uint64_t packets_sent = 0;
  double delivered_bits = 0;
  std::vector<SecondFigures> seconds;
  std::vector<std::vector<double>> second_delays;
  auto second = [&](std::size_t k) -> SecondFigures& {
    if (k >= seconds.size()) {
      const std::size_t from = seconds.size();
      seconds.resize(k + 1);
      second_delays.resize(k + 1);
      for (std::size_t i = from; i < seconds.size(); ++i) seconds[i].t = static_cast<double>(i);
    }
    return seconds[k];
  };

  for (const auto& feed : input.feeds) {
    if (feed.frame_rate <= 0) continue;
    // The frames measured: those due after the warm-up.
    const auto first =
        std::min(feed.frames_offered,
                 static_cast<std::uint64_t>(std::ceil(input.warm_up_s * feed.frame_rate)));
    const std::uint64_t measured = feed.frames_offered - first;
    f.seconds = std::max(f.seconds, static_cast<double>(measured) / feed.frame_rate);
    f.frames_offered += measured;
    f.late_frames += feed.late_frames;
    f.out_of_order_chunks += feed.out_of_order_chunks;
    f.duplicate_chunks += feed.duplicate_chunks;
    f.jitter_ms = std::max(f.jitter_ms, feed.jitter_ms);
    f.retransmits += feed.retransmits;
    // Loss by sequence: runs of frames that never arrived, and each second's share.
    const std::vector<bool> arrived = delivered_map(feed);
    if (feed.frames_reported >
        static_cast<std::uint64_t>(std::count(arrived.begin(), arrived.end(), true))) {
      f.samples_complete = false;
    }
    const double frame_bytes =
        feed.frames_reported > 0
            ? static_cast<double>(feed.bytes_delivered) / static_cast<double>(feed.frames_reported)
            : 0;
    std::uint64_t run = 0;
    for (std::uint64_t seq = first; seq < arrived.size(); ++seq) {
      SecondFigures& s = second(second_of(seq - first, feed.frame_rate));
      ++s.frames_offered;
      if (arrived[seq]) {
        ++f.frames_delivered;
        s.rate_mbps += frame_bytes * 8 / 1e6;
        delivered_bits += frame_bytes * 8;
        run = 0;
        continue;
      }
      ++s.frames_lost;
      ++f.frames_lost;
      if (run++ == 0) ++f.loss_events;
      f.longest_loss_run = std::max(f.longest_loss_run, run);
    }

    // Delay and its variation: each frame's transit against the feed's least (which takes out
    // the ends' clock offset, and the frame's own serialization, common to all its frames).
    auto measured_sample = [&](const TransitSample& sample) {
      return sample.frame_seq >= first && sample.frame_seq < arrived.size();
    };
    std::int32_t least = std::numeric_limits<std::int32_t>::max();
    for (const auto& sample : feed.delivered) {
      if (measured_sample(sample)) least = std::min(least, sample.transit_us);
    }
    for (const auto& sample : feed.delivered) {
      if (!measured_sample(sample)) continue;
      variation_ms.push_back(
          static_cast<double>(std::int64_t{sample.transit_us} - std::int64_t{least}) / 1e3);
      if (input.delay_basis == DelayBasis::one_way) {
        const double ms = static_cast<double>(sample.transit_us) / 1e3;
        delay_ms.push_back(ms);
        const std::size_t k = second_of(sample.frame_seq - first, feed.frame_rate);
        second(k);
        second_delays[k].push_back(ms);
      }
    }
    for (const auto& reading : feed.rtt) {
      const double t = reading.t - input.warm_up_s;
      if (reading.rtt_ms <= 0 || t < 0) continue;
      rtt_half_ms.push_back(reading.rtt_ms / 2);
      // Readings after the schedule's end (the last frames in flight) count in the median
      // but belong to no second of it.
      if (input.delay_basis == DelayBasis::half_rtt &&
          t < static_cast<double>(measured) / feed.frame_rate) {
        const auto k = static_cast<std::size_t>(t);
        second(k);
        second_delays[k].push_back(reading.rtt_ms / 2);
      }
    }
    packets_sent += feed.packets_sent;
  }

  f.retransmission_ratio =
      packets_sent > 0 ? static_cast<double>(f.retransmits) / static_cast<double>(packets_sent) : 0;
  f.rate_mbps = f.seconds > 0 ? delivered_bits / 1e6 / f.seconds : 0;
  f.loss_ratio = f.frames_offered > 0
                     ? static_cast<double>(f.frames_lost) / static_cast<double>(f.frames_offered)
                     : 0;
  f.delay_samples = variation_ms.size();
  f.delay_measured =
      input.delay_basis == DelayBasis::one_way ? !delay_ms.empty() : !rtt_half_ms.empty();
  f.delay_variation_ms = percentiles(variation_ms);
  f.delay_ms =
      input.delay_basis == DelayBasis::one_way ? median_of(delay_ms) : median_of(rtt_half_ms);

  for (std::size_t k = 0; k < seconds.size(); ++k) {
    SecondFigures& s = seconds[k];
    s.delay_samples = second_delays[k].size();
    s.delay_ms = median_of(second_delays[k]);
    if (s.frames_offered == 0) continue;
    s.errored = s.frames_lost > 0;
    s.severely_errored = static_cast<double>(s.frames_lost) >
                         severe_loss_fraction * static_cast<double>(s.frames_offered);
    f.errored_seconds += s.errored;
    f.severely_errored_seconds += s.severely_errored;
  }
  f.seconds_counted = static_cast<std::uint64_t>(std::count_if(
      seconds.begin(), seconds.end(), [](const auto& s) { return s.frames_offered > 0; }));
  f.availability = f.seconds_counted > 0 ? 1.0 - static_cast<double>(f.severely_errored_seconds) /
                                                     static_cast<double>(f.seconds_counted)
                                         : 1.0;
  f.by_second = std::move(seconds);
  return f;
}

}  // namespace hdstream
