#include "presets/presets.hpp"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/units.hpp"

namespace hdstream {
namespace {

// "99.9%" -> 0.999; anything else (no %, or not a number) -> nullopt.
std::optional<double> percentage(std::string_view text) {
  if (!text.ends_with('%')) return std::nullopt;
  try {
    return parse_percentage(text) / 100;
  } catch (const UnitError&) {
    return std::nullopt;
  }
}

// Reads typed values out of one entry, naming file:line and key in every error.
class EntryReader {
 public:
  explicit EntryReader(const PresetEntry& entry) : entry_(entry) {}

  template <typename T>
  std::optional<T> get(std::string_view key) const {
    const PresetValue* value = entry_.get(key);
    if (!value) return std::nullopt;
    if (const T* typed = std::get_if<T>(&value->value)) return *typed;
    throw fail(*value, key, "has the wrong type");
  }

  std::optional<std::string> text(std::string_view key) const { return get<std::string>(key); }

  std::optional<std::uint32_t> count(std::string_view key, std::int64_t min,
                                     std::int64_t max) const {
    auto number = get<std::int64_t>(key);
    if (!number) return std::nullopt;
    if (*number < min || *number > max) {
      throw fail(*entry_.get(key), key, fmt::format("must be between {} and {}", min, max));
    }
    return static_cast<std::uint32_t>(*number);
  }

  std::optional<std::uint64_t> rate(std::string_view key) const {
    return parsed(key, [](const std::string& t) { return parse_rate_bps(t); });
  }
  std::optional<std::chrono::nanoseconds> duration(std::string_view key) const {
    return parsed(key, [](const std::string& t) { return parse_duration(t); });
  }
  std::optional<TransportKind> transport(std::string_view key) const {
    return parsed(key, [](const std::string& t) {
      if (auto kind = transport_from_string(t)) return *kind;
      throw UnitError(fmt::format("unknown transport '{}' (expected tcp, mtcp or srt)", t));
    });
  }
  // An IPv4 or IPv6 address literal (a local address to send from).
  std::optional<std::string> address(std::string_view key) const {
    return parsed(key, [](const std::string& t) {
      std::array<unsigned char, sizeof(in6_addr)> bytes{};
      if (inet_pton(AF_INET, t.c_str(), bytes.data()) != 1 &&
          inet_pton(AF_INET6, t.c_str(), bytes.data()) != 1) {
        throw UnitError(fmt::format("'{}' is not an IP address", t));
      }
      return t;
    });
  }
  // A fraction in [0, 1], written as a number (0.999) or a percentage ("99.9%").
  std::optional<double> fraction(std::string_view key) const {
    const PresetValue* value = entry_.get(key);
    if (!value) return std::nullopt;
    double result = -1;
    if (const auto* text = std::get_if<std::string>(&value->value)) {
      result = percentage(*text).value_or(-1);
    } else {
      result = *number(key);
    }
    if (!(result >= 0 && result <= 1)) {
      throw fail(*value, key, "must be a fraction from 0 to 1 or a percentage (\"99.9%\")");
    }
    return result;
  }
  std::optional<double> number(std::string_view key) const {
    const PresetValue* value = entry_.get(key);
    if (!value) return std::nullopt;
    if (const auto* integer = std::get_if<std::int64_t>(&value->value)) {
      return static_cast<double>(*integer);
    }
    if (const auto* real = std::get_if<double>(&value->value)) return *real;
    throw fail(*value, key, "must be a number");
  }

 private:
  template <typename Parse>
  auto parsed(std::string_view key, Parse parse) const -> std::optional<decltype(parse(""))> {
    auto raw = text(key);
    if (!raw) return std::nullopt;
    try {
      return parse(*raw);
    } catch (const UnitError& error) {
      throw fail(*entry_.get(key), key, error.what());
    }
  }

  PresetError fail(const PresetValue& value, std::string_view key, std::string_view why) const {
    return PresetError(fmt::format("{}: '{}' of '{}' {}", value.origin, key, entry_.name, why));
  }

  const PresetEntry& entry_;
};

SlaPreset sla_from(const EntryReader& r, const PresetEntry& entry) {
  SlaPreset sla;
  if (const PresetValue* min_rate = entry.get("sla.min_rate")) {
    const auto* text = std::get_if<std::string>(&min_rate->value);
    if (text && percentage(*text)) {
      sla.min_rate_fraction = r.fraction("sla.min_rate");
    } else {
      sla.min_rate_bps = r.rate("sla.min_rate");
    }
  }
  sla.max_delay = r.duration("sla.max_delay");
  sla.max_delay_variation = r.duration("sla.max_delay_variation");
  sla.max_loss_ratio = r.fraction("sla.max_loss_ratio");
  sla.min_availability = r.fraction("sla.min_availability");
  sla.severely_errored = r.fraction("sla.severely_errored");
  return sla;
}

template <typename T>
T unknown(const PresetStore& store, PresetKind kind, std::string_view name) {
  throw EndpointError(fmt::format("unknown {} '{}' (known: {})", to_string(kind), name,
                                  fmt::join(store.names(kind), ", ")));
}

}  // namespace

Endpoint DestinationPreset::endpoint_for(std::size_t stream) const {
  return Endpoint{hosts.at(stream % hosts.size()), port};
}

Endpoint DestinationPreset::endpoint_b_for(std::size_t stream) const {
  return Endpoint{hosts_b.at(stream % hosts_b.size()), port};
}

DestinationPreset destination_from(const PresetEntry& entry) {
  EntryReader r(entry);
  DestinationPreset d;
  d.name = entry.name;
  d.description = r.text("description").value_or("");
  d.hosts = r.get<std::vector<std::string>>("hosts").value_or(std::vector<std::string>{});
  if (d.hosts.empty()) {
    const PresetValue* any = entry.values.empty() ? nullptr : &entry.values.begin()->second;
    throw PresetError(fmt::format("{}: destination '{}' needs hosts = [\"HOST\", ...]",
                                  any ? any->origin : std::string("presets"), entry.name));
  }
  d.hosts_b = r.get<std::vector<std::string>>("hosts_b").value_or(std::vector<std::string>{});
  d.bind_a = r.address("bind_a");
  d.bind_b = r.address("bind_b");
  d.port = static_cast<std::uint16_t>(r.count("port", 1, 65535).value_or(9000));
  d.transport = r.transport("transport");
  d.conns = r.count("conns", 1, 64);
  d.streams = r.count("streams", 1, 256);
  d.rate_bps = r.rate("rate");
  d.format = r.text("format");
  d.rtt = r.duration("rtt");
  d.link_rate_bps = r.rate("link_rate");
  d.mtu = r.count("mtu", 576, 65536);
  d.distance_km = r.number("distance_km");
  d.latency = r.duration("latency");
  d.key_file = r.text("key_file");
  d.cc = r.text("cc");
  d.sla = sla_from(r, entry);
  for (const auto& [key, value] : entry.values) d.origins.emplace(key, value.origin);
  return d;
}

FormatPreset format_from(const PresetEntry& entry) {
  EntryReader r(entry);
  FormatPreset f;
  f.name = entry.name;
  f.description = r.text("description").value_or("");
  auto codec_name = r.text("codec").value_or("");
  auto codec = codec_from_string(codec_name);
  if (!codec) {
    const PresetValue* value = entry.get("codec");
    throw PresetError(
        fmt::format("{}: format '{}' needs a known codec (synthetic, dnxhd, v210, uyvy)",
                    value ? value->origin : std::string("presets"), entry.name));
  }
  f.feed.codec = *codec;
  f.feed.width = static_cast<std::uint16_t>(r.count("width", 16, 8192).value_or(1920));
  f.feed.height = static_cast<std::uint16_t>(r.count("height", 16, 8192).value_or(1080));
  if (auto rate = r.text("frame_rate")) {
    unsigned num = 0, den = 1;
    const auto slash = rate->find('/');
    const std::string num_text = rate->substr(0, slash);
    const std::string den_text = slash == std::string::npos ? "1" : rate->substr(slash + 1);
    auto [end1, ec1] = std::from_chars(num_text.data(), num_text.data() + num_text.size(), num);
    auto [end2, ec2] = std::from_chars(den_text.data(), den_text.data() + den_text.size(), den);
    if (ec1 != std::errc{} || ec2 != std::errc{} || end1 != num_text.data() + num_text.size() ||
        end2 != den_text.data() + den_text.size() || num == 0 || den == 0) {
      throw PresetError(fmt::format("{}: 'frame_rate' of '{}' must look like 30000/1001 or 25",
                                    entry.get("frame_rate")->origin, entry.name));
    }
    f.feed.frame_rate_num = num;
    f.feed.frame_rate_den = den;
  }
  f.feed.bit_rate_bps = r.rate("rate").value_or(270'000'000);
  f.default_source = r.text("source").value_or(
      f.feed.codec == Codec::synthetic ? "synthetic" : "videotestsrc pattern=smpte");
  return f;
}

ProfilePreset profile_from(const PresetEntry& entry) {
  EntryReader r(entry);
  ProfilePreset p;
  p.name = entry.name;
  p.description = r.text("description").value_or("");
  p.destination = r.text("destination");
  p.format = r.text("format");
  p.streams = r.count("streams", 1, 256);
  p.rate_bps = r.rate("rate");
  p.transport = r.transport("transport");
  p.conns = r.count("conns", 1, 64);
  for (const auto& [key, value] : entry.values) p.origins.emplace(key, value.origin);
  return p;
}

DestinationPreset resolve_destination(const PresetStore& store, std::string_view text) {
  if (const PresetEntry* entry = store.find(PresetKind::destination, text)) {
    return destination_from(*entry);
  }
  if (text.find(':') == std::string_view::npos) {
    throw EndpointError(fmt::format(
        "unknown destination '{}': not a preset name (known: {}), and an address needs a port "
        "(HOST:PORT)",
        text, fmt::join(store.names(PresetKind::destination), ", ")));
  }
  const Endpoint endpoint = parse_endpoint(text);
  DestinationPreset ad_hoc;
  ad_hoc.name = std::string(text);
  ad_hoc.hosts = {endpoint.host};
  ad_hoc.port = endpoint.port;
  return ad_hoc;
}

FormatPreset resolve_format(const PresetStore& store, std::string_view name) {
  if (const PresetEntry* entry = store.find(PresetKind::format, name)) return format_from(*entry);
  return unknown<FormatPreset>(store, PresetKind::format, name);
}

ProfilePreset resolve_profile(const PresetStore& store, std::string_view name) {
  if (const PresetEntry* entry = store.find(PresetKind::profile, name)) return profile_from(*entry);
  return unknown<ProfilePreset>(store, PresetKind::profile, name);
}

}  // namespace hdstream
