#include "gui/panel_model.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "common/units.hpp"

namespace hdstream {
namespace {

int severity(Health health) {
  switch (health) {
    case Health::good:
      return 1;
    case Health::warn:
      return 2;
    case Health::bad:
      return 3;
    default:
      return 0;
  }
}

bool judged(Health health) {
  return severity(health) > 0;
}

StreamState combined_state(const FeedSides& pair) {
  StreamState send = pair.send.stream ? pair.send.stream->state : StreamState::invalid;
  StreamState recv = pair.recv.stream ? pair.recv.stream->state : StreamState::invalid;
  for (auto state :
       {StreamState::failed, StreamState::running, StreamState::waiting, StreamState::finished}) {
    if (send == state || recv == state) return state;
  }
  return StreamState::invalid;
}

std::string leg_letter(std::uint8_t leg) {
  return leg == 0 ? "A" : "B";
}

// The end whose protection figures a row shows: the receiver's when it reports them.
const StreamSnapshot* protection_source(const StreamSnapshot* send, const StreamSnapshot* recv) {
  if (recv && recv->protection.present) return recv;
  if (send && send->protection.present) return send;
  return nullptr;
}

// A protected feed's legs as its row shows them (rates come later, from the samples). A leg is
// up only while every end that reports it has it running, and legs_up is the fewer the ends
// report: a path that either end has lost shows at once, whichever notices first.
void show_protection(FeedRow& row, const StreamSnapshot* send, const StreamSnapshot* recv) {
  const StreamSnapshot* shown = protection_source(send, recv);
  row.is_protected = shown != nullptr;
  row.legs.clear();
  if (!shown) return;
  const ProtectionSnapshot& p = shown->protection;
  row.protected_frames = p.protected_frames;
  row.skew_ms = p.skew_ms;
  row.legs_up = p.legs_up;
  for (const StreamSnapshot* side : {send, recv}) {
    if (side && side->protection.present)
      row.legs_up = std::min(row.legs_up, side->protection.legs_up);
  }
  for (const LegSnapshot& leg : p.legs) {
    LegRow out;
    out.leg = leg.leg;
    out.state = leg.state;
    out.rtt_ms = leg.rtt_ms;
    out.frames = leg.frames;
    out.drops = leg.drops;
    out.retransmits = leg.retransmits;
    out.only_frames = leg.only_frames;
    out.up = true;
    for (const StreamSnapshot* side : {send, recv}) {
      if (!side || !side->protection.present) continue;
      for (const LegSnapshot& other : side->protection.legs) {
        if (other.leg == leg.leg && other.state != StreamState::running) out.up = false;
      }
    }
    row.legs.push_back(out);
  }
}

// Why a protected feed is not protected now: the legs that are down, by name.
std::string legs_down_reason(const FeedRow& row) {
  std::vector<std::string> down;
  for (const LegRow& leg : row.legs) {
    if (!leg.up) down.push_back("leg " + leg_letter(leg.leg));
  }
  if (down.size() >= 2) return "both legs down";
  if (down.size() == 1) return fmt::format("one leg down ({})", down.front());
  // Every leg runs where it is reported, yet an end counts fewer up (a sender still opening
  // its legs): its count is all there is to say.
  return row.legs_up == 0 ? "no leg up" : "one leg down";
}

}  // namespace

std::string_view to_string(Health health) {
  switch (health) {
    case Health::good:
      return "good";
    case Health::warn:
      return "warn";
    case Health::bad:
      return "bad";
    case Health::stale:
      return "stale";
    case Health::unknown:
      break;
  }
  return "unknown";
}

std::string format_drops(const FeedRow& row) {
  const std::uint64_t total = row.frames + row.drops;
  return fmt::format("{} / {} ({:.2f}%)", row.drops, total, row.drop_percent);
}

std::string format_latency(const FeedRow& row) {
  if (!row.has_latency) return "\u2014";
  if (row.latency_budget_ms > 0) {
    return fmt::format("{:.1f} ms (margin {:.1f})", row.latency_ms,
                       row.latency_budget_ms - row.latency_ms);
  }
  return fmt::format("{:.2f} ms", row.latency_ms);
}

std::string format_legs(const FeedRow& row) {
  std::string out;
  for (const LegRow& leg : row.legs) {
    if (!out.empty()) out += ' ';
    out += leg_letter(leg.leg) + (leg.up ? " \u25cf" : " \u25cb");
  }
  return out;
}

std::string format_protection(const FeedRow& row) {
  if (!row.is_protected) return "";
  return fmt::format("{} protected \u00b7 skew {:.1f} ms", row.protected_frames, row.skew_ms);
}

std::string format_leg(const LegRow& leg) {
  return fmt::format(
      "leg {}: {}, {:.1f} Mbps, RTT {:.2f} ms, {} drops, {} retx, {} only on this leg",
      leg_letter(leg.leg), to_string(leg.state), leg.mbps, leg.rtt_ms, leg.drops, leg.retransmits,
      leg.only_frames);
}

std::string format_av_offset(const FeedRow& row) {
  if (!row.av_offset_ms) return "";
  return fmt::format("A/V {:+.1f} ms", *row.av_offset_ms);
}

std::string format_sound_levels(const FeedRow& row) {
  std::string out;
  for (std::size_t i = 0; i < row.sound.pairs.size(); ++i) {
    const PairLevels& pair = row.sound.pairs[i];
    const std::size_t first = 2 * i + 1;
    const std::string channels = first + 1 <= row.audio_channels
                                     ? fmt::format("{}-{}", first, first + 1)
                                     : fmt::format("{}", first);
    out += fmt::format("{}{}: peak {:.1f}, RMS {:.1f}, hold {:.1f} dBFS", out.empty() ? "" : "\n",
                       channels, pair.peak_dbfs, pair.rms_dbfs, pair.hold_dbfs);
  }
  if (row.sound.silent) out += out.empty() ? "SILENT" : "\nSILENT";
  if (row.no_signal) out += out.empty() ? "no signal" : "\nno signal";
  return out;
}

PanelModel::PanelModel(PanelThresholds thresholds) : thresholds_(thresholds) {}

std::string PanelModel::row_key(const FeedSides& feed) {
  std::vector<const std::string*> keys;
  if (feed.recv.stream) keys.push_back(&feed.recv.key);
  if (feed.send.stream) keys.push_back(&feed.send.key);
  std::string row = *keys.front();
  for (const std::string* key : keys) {
    if (auto found = row_of_side_.find(*key); found != row_of_side_.end()) {
      row = found->second;
      break;
    }
  }
  for (const std::string* key : keys) row_of_side_.emplace(*key, row);
  return row;
}

void PanelModel::label_rows() {
  std::map<std::uint16_t, std::size_t> rows_of_stream;
  for (const auto& row : rows_) ++rows_of_stream[row.stream];
  for (auto& row : rows_) {
    row.label = rows_of_stream[row.stream] > 1
                    ? fmt::format("{} #{}", row.receiver_host, row.stream)
                    : fmt::format("#{}", row.stream);
  }
}

void PanelModel::update(std::span<const PanelInput> inputs, double now_s) {
  std::map<std::string, FeedSides> pairs;
  std::vector<std::tuple<std::uint16_t, std::string, std::string>> new_keys;
  for (auto& feed : pair_feeds(inputs)) {
    std::string key = row_key(feed);
    if (pairs.contains(key)) continue;  // two feeds claiming one row: the first keeps it
    if (!tracks_.contains(key)) {
      tracks_[key];
      new_keys.emplace_back(feed.stream, feed.receiver, key);
    }
    pairs.emplace(std::move(key), std::move(feed));
  }
  // Rows keep their place once shown (the chart's series follow rows); new feeds are appended
  // in stream order, then by receiving end.
  std::sort(new_keys.begin(), new_keys.end());
  for (const auto& [stream, receiver, key] : new_keys) {
    FeedRow row;
    row.key = key;
    row.stream = stream;
    rows_.push_back(std::move(row));
  }

  aggregate_ = AggregateRow{};
  for (FeedRow& row : rows_) {
    Track& track = tracks_[row.key];
    auto found = pairs.find(row.key);
    if (found == pairs.end()) {
      // The source vanished from the inputs (a host no longer answers): keep the last figures.
      judge(row, track, now_s);
    } else {
      const FeedSides& pair = found->second;
      const StreamSnapshot* send = pair.send.stream;
      const StreamSnapshot* recv = pair.recv.stream;
      const StreamSnapshot& any = recv ? *recv : *send;
      row.has_send = send != nullptr;
      row.has_recv = recv != nullptr;
      row.state = combined_state(pair);
      row.transport = any.transport;
      row.planned_mbps = static_cast<double>(
                             std::max(send ? send->planned_bps : 0, recv ? recv->planned_bps : 0)) /
                         1e6;
      const bool far = !recv && send && send->far_end.valid;
      row.far_end = far;

      Sample sample;
      sample.t = recv ? pair.recv.input->source.snapshot.t : pair.send.input->source.snapshot.t;
      sample.bytes = recv ? recv->bytes : send->bytes;
      if (recv) {
        sample.frames = recv->frames;
        sample.drops = recv->drops;  // includes frames the sender skipped (sequence gaps)
      } else if (far) {
        sample.frames = send->far_end.frames;
        sample.drops = send->far_end.drops;
      } else {
        sample.frames = send->frames;
        sample.drops = send->drops;
      }
      show_protection(row, send, recv);
      if (const StreamSnapshot* legs = protection_source(send, recv)) {
        for (const LegSnapshot& leg : legs->protection.legs) {
          sample.leg_bytes[leg.leg & 1] = leg.bytes;
        }
      }
      row.frames = sample.frames;
      row.drops = sample.drops;
      const std::uint64_t total = row.frames + row.drops;
      row.drop_percent =
          total ? 100.0 * static_cast<double>(row.drops) / static_cast<double>(total) : 0.0;

      const double fresh_s = std::max(pair.send.input ? pair.send.input->fresh_s : -1.0,
                                      pair.recv.input ? pair.recv.input->fresh_s : -1.0);
      track.last_fresh_s = std::max(track.last_fresh_s, fresh_s);
      if (track.samples.empty() || sample.t > track.samples.back().t) {
        if (track.samples.empty() || sample.bytes != track.samples.back().bytes ||
            sample.frames != track.samples.back().frames) {
          track.last_change_s = now_s;
        }
        track.samples.push_back(sample);
      }
      if (track.last_change_s < 0) track.last_change_s = now_s;
      const double keep_s = std::max(thresholds_.window_s, thresholds_.rate_window_s) + 1.0;
      while (track.samples.size() > 2 && track.samples.back().t - track.samples[1].t >= keep_s) {
        track.samples.pop_front();
      }

      // Shown figures over the short window.
      const Sample& last = track.samples.back();
      const Sample* base = &track.samples.front();
      for (const auto& s : track.samples) {
        if (last.t - s.t <= thresholds_.rate_window_s + 1e-6) {
          base = &s;
          break;
        }
      }
      // A base too close to the last sample gives a noisy rate: fall back to the oldest.
      if (last.t - base->t < thresholds_.rate_window_s / 2) base = &track.samples.front();
      const double span_s = last.t - base->t;
      row.mbps = megabits_per_second(last.bytes - base->bytes, span_s);
      for (LegRow& leg : row.legs) {
        const std::uint64_t now_bytes = last.leg_bytes[leg.leg & 1];
        const std::uint64_t then_bytes = base->leg_bytes[leg.leg & 1];
        // A leg that restarted counts from zero again: no rate rather than a wrapped one.
        leg.mbps =
            now_bytes >= then_bytes ? megabits_per_second(now_bytes - then_bytes, span_s) : 0;
      }

      row.has_picture = recv && recv->media;
      if (row.has_picture) {
        row.picture_from = pair.recv.input->polled_from;
        row.frozen = recv->frozen;
        row.black = recv->black;
        row.audio_channels = recv->audio_channels;
        row.sound = recv->sound;
        row.av_offset_ms = recv->av_offset_ms;
        const double receiver_t = pair.recv.input->source.snapshot.t;
        if (!track.decoded_change_t || recv->frames_decoded != track.decoded) {
          track.decoded = recv->frames_decoded;
          track.decoded_change_t = receiver_t;
        }
        // A host that stopped answering has no signal either (its clock stopped with it).
        const bool receiver_silent = now_s - pair.recv.input->fresh_s > thresholds_.stale_after_s;
        row.no_signal = row.state != StreamState::running || receiver_silent ||
                        receiver_t - *track.decoded_change_t >= thresholds_.no_signal_after_s;
      }

      row.has_jitter = recv || far;
      row.jitter_ms = recv ? recv->jitter_ms : far ? send->far_end.jitter_ms : 0;
      row.has_latency = recv || far;
      row.latency_ms = recv ? recv->latency_ms : far ? send->far_end.latency_ms : 0;
      row.latency_budget_ms = recv ? recv->latency_budget_ms : 0;
      row.has_fps = recv || far;
      row.fps = recv  ? (span_s > 0 ? static_cast<double>(last.frames - base->frames) / span_s : 0)
                : far ? send->far_end.fps
                      : 0;
      row.has_rtt = send || (recv && recv->rtt_ms > 0);
      row.rtt_ms = send ? send->rtt_ms : recv->rtt_ms;
      row.retransmits = send ? send->retransmits : recv->retransmits;
      row.destination = pair.receiver;
      row.sender_host = send ? pair.send.host : std::string("?");
      row.receiver_host = recv ? pair.recv.host : split_host_port(pair.receiver).host;
      row.hosts = fmt::format("{} \u2192 {}", row.sender_host, row.receiver_host);
      judge(row, track, now_s);
    }

    aggregate_.feeds += 1;
    aggregate_.healthy += row.health == Health::good ? 1 : 0;
    aggregate_.mbps += row.health == Health::stale ? 0 : row.mbps;
    aggregate_.planned_mbps += row.planned_mbps;
    aggregate_.drops += row.drops;
    aggregate_.frames += row.frames;
    if (severity(row.health) > severity(aggregate_.health)) aggregate_.health = row.health;
  }
  label_rows();
  if (aggregate_.health == Health::unknown && !rows_.empty() &&
      std::all_of(rows_.begin(), rows_.end(),
                  [](const FeedRow& r) { return r.health == Health::stale; })) {
    aggregate_.health = Health::stale;
  }

  if (history_.empty() || now_s - history_.back().t >= thresholds_.history_step_s) {
    HistoryPoint point;
    point.t = now_s;
    point.aggregate_mbps = aggregate_.mbps;
    for (const auto& row : rows_)
      point.feed_mbps.push_back(row.health == Health::stale ? 0 : row.mbps);
    history_.push_back(std::move(point));
  }
  while (!history_.empty() && now_s - history_.front().t > thresholds_.history_s)
    history_.pop_front();
}

void PanelModel::judge(FeedRow& row, Track& track, double now_s) {
  const auto& t = thresholds_;
  Health candidate = Health::unknown;
  std::string reason;
  const bool no_fresh_data = track.last_fresh_s < 0 || now_s - track.last_fresh_s > t.stale_after_s;
  const bool no_progress = row.state == StreamState::running && track.last_change_s >= 0 &&
                           now_s - track.last_change_s > t.stale_after_s;
  row.window_drop_fraction = 0;
  row.window_rate_fraction = 0;
  if (row.state == StreamState::failed) {
    candidate = Health::bad;
    reason = "failed";
  } else if (no_fresh_data) {
    candidate = Health::stale;
    reason = fmt::format("no report for {:.0f} s", now_s - std::max(track.last_fresh_s, 0.0));
  } else if (no_progress) {
    candidate = Health::stale;
    reason = fmt::format("no frames for {:.0f} s", now_s - track.last_change_s);
  } else if (row.state == StreamState::waiting) {
    reason = "waiting for the session";
  } else if (row.state == StreamState::finished) {
    reason = "finished";
  } else if (track.samples.size() < 2) {
    reason = "starting";
  } else {
    const Sample& last = track.samples.back();
    const Sample* base = &track.samples.front();
    for (const auto& s : track.samples) {
      if (last.t - s.t <= t.window_s + 1e-6) {
        base = &s;
        break;
      }
    }
    const double span_s = last.t - base->t;
    const double frames = static_cast<double>(last.frames - base->frames);
    const double drops = static_cast<double>(last.drops - base->drops);
    row.window_drop_fraction = frames + drops > 0 ? drops / (frames + drops) : 0;
    // The rate is judged once the window is at least half full, so a feed is not yellow while
    // it starts.
    const bool rate_known = row.planned_mbps > 0 && span_s >= t.window_s / 2;
    if (rate_known) {
      row.window_rate_fraction =
          megabits_per_second(last.bytes - base->bytes, span_s) / row.planned_mbps;
    }
    if (row.window_drop_fraction > t.drops_bad_fraction) {
      candidate = Health::bad;
      reason = fmt::format("{:.1f}% drops", 100 * row.window_drop_fraction);
    } else if (row.window_drop_fraction > t.drops_warn_fraction) {
      candidate = Health::warn;
      reason = fmt::format("{:.1f}% drops", 100 * row.window_drop_fraction);
    } else if (row.is_protected && row.legs_up < 2) {
      // Every frame may still arrive, but one more fault on the remaining path costs frames.
      candidate = Health::warn;
      reason = legs_down_reason(row);
    } else if (rate_known && row.window_rate_fraction < t.rate_warn_fraction) {
      candidate = Health::warn;
      reason = fmt::format("{:.0f}% of nominal rate", 100 * row.window_rate_fraction);
    } else {
      candidate = Health::good;
    }
  }

  // Worse shows at once; better only after recover_s of being better, so lights do not flicker
  // on a feed hovering around a threshold.
  if (!judged(candidate) || !judged(track.shown) || severity(candidate) >= severity(track.shown)) {
    track.shown = candidate;
    track.pending = candidate;
    track.better_since_s = -1;
    row.health_reason = reason;
  } else {
    if (track.pending != candidate || track.better_since_s < 0) {
      track.pending = candidate;
      track.better_since_s = now_s;
    }
    if (now_s - track.better_since_s >= t.recover_s) {
      track.shown = candidate;
      track.better_since_s = -1;
      row.health_reason = reason;
    } else {
      row.health_reason = reason.empty() ? "recovering" : reason + ", recovering";
    }
  }
  row.health = track.shown;
}

}  // namespace hdstream
