#include "presets/preset_store.hpp"

#include <gtest/gtest.h>

#include "presets/presets.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(PresetStore, ShippedPresetsCarryTheSeedsFigures) {
  PresetStore store;
  store.load_file(HDSTREAM_SHIPPED_PRESETS);
  const auto portland = resolve_destination(store, "portland");
  EXPECT_EQ(portland.hosts.size(), 5u);
  EXPECT_EQ(portland.streams, 5u);
  EXPECT_EQ(portland.rate_bps, 270'000'000u);
  EXPECT_EQ(portland.format, "dnxhd220");  // the show carries pictures, not synthetic frames
  EXPECT_EQ(portland.distance_km, 300.0);
  EXPECT_EQ(portland.endpoint_for(3).host, "portland-4.sc99.hdstream.example");
  const auto arlington = resolve_destination(store, "arlington");
  EXPECT_EQ(arlington.rtt, 97ms);
  EXPECT_EQ(arlington.mtu, 4470u);
  EXPECT_EQ(arlington.distance_km, 5626.0);
  const auto pasadena = resolve_destination(store, "pasadena");
  EXPECT_EQ(pasadena.rtt, 264ms);
  EXPECT_EQ(pasadena.distance_km, 15766.0);
  const auto bratislava = resolve_destination(store, "bratislava");
  EXPECT_EQ(bratislava.rtt, 3ms);
  EXPECT_EQ(bratislava.mtu, 1500u);
  for (const char* name : {"loopback", "seattle"})
    EXPECT_NO_THROW(resolve_destination(store, name));
  EXPECT_EQ(resolve_profile(store, "sc99").destination, "portland");
  EXPECT_EQ(resolve_format(store, "synthetic").feed.frame_rate_den, 1001u);
}

TEST(PresetStore, LaterLayersOverrideSingleKeysAndRecordTheirOrigin) {
  PresetStore store;
  store.load_text(R"([destinations.site]
hosts = ["a.example"]
port = 9000
rtt = "10ms"
)",
                  "system.toml");
  store.load_text(R"(
[destinations.site]
rtt = "97ms"
)",
                  "user.toml");
  const PresetEntry* entry = store.find(PresetKind::destination, "site");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->get("rtt")->origin, "user.toml:3");
  EXPECT_EQ(entry->get("port")->origin, "system.toml:3");
  const auto site = destination_from(*entry);
  EXPECT_EQ(site.rtt, 97ms);
  EXPECT_EQ(site.port, 9000);
  EXPECT_EQ(store.files(), (std::vector<std::string>{"system.toml", "user.toml"}));
}

TEST(PresetStore, HostPortIsAnAdHocDestination) {
  PresetStore store;
  const auto ad_hoc = resolve_destination(store, "198.18.0.2:9000");
  EXPECT_EQ(ad_hoc.endpoint_for(4), (Endpoint{"198.18.0.2", 9000}));
  EXPECT_THROW(resolve_destination(store, "nowhere"), EndpointError);
}

TEST(PresetStore, ADestinationMayNameASecondPathAndTheAddressEachPathSendsFrom) {
  PresetStore store;
  store.load_text(R"([destinations.two]
hosts = ["198.18.1.1", "198.18.1.2"]
hosts_b = ["198.19.1.1"]
bind_a = "198.18.2.1"
bind_b = "2001:db8::1"
port = 9100
)",
                  "two.toml");
  const auto two = destination_from(*store.find(PresetKind::destination, "two"));
  EXPECT_EQ(two.endpoint_for(1), (Endpoint{"198.18.1.2", 9100}));
  EXPECT_EQ(two.endpoint_b_for(0), (Endpoint{"198.19.1.1", 9100}));
  EXPECT_EQ(two.endpoint_b_for(1), (Endpoint{"198.19.1.1", 9100}));  // one host takes all
  EXPECT_EQ(two.bind_a, "198.18.2.1");
  EXPECT_EQ(two.bind_b, "2001:db8::1");
  // Without them: one path, the kernel's source address.
  const auto one = resolve_destination(store, "198.18.0.2:9000");
  EXPECT_TRUE(one.hosts_b.empty());
  EXPECT_FALSE(one.bind_a || one.bind_b);
}

TEST(PresetStore, ADestinationsSlaIsReadAndLayeredKeyByKey) {
  PresetStore store;
  store.load_text(R"([destinations.link]
hosts = ["h"]
[destinations.link.sla]
min_rate = "99.5%"
max_delay = "25ms"
max_delay_variation = "2ms"
max_loss_ratio = 1e-6
min_availability = "99.99%"
severely_errored = 0.5
)",
                  "site.toml");
  store.load_text("[destinations.link.sla]\nmin_rate = \"260M\"\n", "user.toml");
  const auto link = destination_from(*store.find(PresetKind::destination, "link"));
  EXPECT_FALSE(link.sla.min_rate_fraction);
  EXPECT_EQ(link.sla.min_rate_bps, 260'000'000u);  // the later layer's, as a rate
  EXPECT_EQ(link.sla.max_delay, std::chrono::milliseconds(25));
  EXPECT_EQ(link.sla.max_delay_variation, std::chrono::milliseconds(2));
  EXPECT_DOUBLE_EQ(*link.sla.max_loss_ratio, 1e-6);
  EXPECT_DOUBLE_EQ(*link.sla.min_availability, 0.9999);
  EXPECT_DOUBLE_EQ(*link.sla.severely_errored, 0.5);
  EXPECT_EQ(store.find(PresetKind::destination, "link")->get("sla.max_delay")->origin,
            "site.toml:5");
  const auto plain = resolve_destination(store, "h:9000");
  EXPECT_FALSE(plain.sla.max_delay || plain.sla.min_rate_fraction || plain.sla.min_rate_bps);
}

struct BadPreset {
  const char* text;
  const char* message;  // the one line the user sees
};

class MalformedPresets : public ::testing::TestWithParam<BadPreset> {};

TEST_P(MalformedPresets, AreRejectedWithFileLineAndWhy) {
  PresetStore store;
  try {
    store.load_text(GetParam().text, "bad.toml");
    // Some mistakes are only visible to the typed layer.
    for (const auto& name : store.names(PresetKind::destination)) {
      destination_from(*store.find(PresetKind::destination, name));
    }
    for (const auto& name : store.names(PresetKind::format)) {
      format_from(*store.find(PresetKind::format, name));
    }
    FAIL() << "accepted: " << GetParam().text;
  } catch (const PresetError& error) {
    EXPECT_STREQ(error.what(), GetParam().message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Presets, MalformedPresets,
    ::testing::Values(
        BadPreset{"[destinations.x\nhosts = []",
                  "bad.toml:1: Error while parsing table header: expected ']', saw '\\n'"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nrtt = \"fast\"",
                  "bad.toml:3: 'rtt' of 'x' invalid duration 'fast': expected a number first"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nport = 70000",
                  "bad.toml:3: 'port' of 'x' must be between 1 and 65535"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nprot = 9000",
                  "bad.toml:3: unknown key 'prot' in destination 'x' (known: description, hosts, "
                  "hosts_b, bind_a, bind_b, port, transport, conns, streams, rate, format, rtt, "
                  "link_rate, mtu, distance_km, latency, key_file, cc)"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nbind_a = \"eth0\"",
                  "bad.toml:3: 'bind_a' of 'x' 'eth0' is not an IP address"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nbind_b = \"10.0.0.256\"",
                  "bad.toml:3: 'bind_b' of 'x' '10.0.0.256' is not an IP address"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nbind_a = 10",
                  "bad.toml:3: 'bind_a' of 'x' has the wrong type"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nhosts_b = \"h2\"",
                  "bad.toml:3: 'hosts_b' of 'x' has the wrong type"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nhosts_b = [1]",
                  "bad.toml:3: 'hosts_b' must be a list of strings"},
        BadPreset{"[destinations.x]\nhosts = [1, 2]",
                  "bad.toml:2: 'hosts' must be a list of strings"},
        BadPreset{"[destinations.x]\nport = 9000",
                  "bad.toml:2: destination 'x' needs hosts = [\"HOST\", ...]"},
        BadPreset{
            "[destinations.x]\nhosts = [\"h\"]\ntransport = \"udp\"",
            "bad.toml:3: 'transport' of 'x' unknown transport 'udp' (expected tcp, mtcp or srt)"},
        BadPreset{"[destinations.x]\nhosts = \"h\"",
                  "bad.toml:2: 'hosts' of 'x' has the wrong type"},
        BadPreset{
            "[stations.x]\nhosts = [\"h\"]",
            "bad.toml:1: unknown section 'stations' (expected destinations, formats or profiles)"},
        BadPreset{"destinations = 5",
                  "bad.toml:1: 'destinations' must be a table of named entries"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\nsla = 5",
                  "bad.toml:3: 'sla' of 'x' must be a table ([destinations.x.sla])"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\n[destinations.x.sla]\nmax_jitter = \"1ms\"",
                  "bad.toml:4: unknown key 'max_jitter' in the sla of 'x' (known: min_rate, "
                  "max_delay, max_delay_variation, max_loss_ratio, min_availability, "
                  "severely_errored)"},
        BadPreset{
            "[destinations.x]\nhosts = [\"h\"]\n[destinations.x.sla]\nmin_availability = 99.9",
            "bad.toml:4: 'sla.min_availability' of 'x' must be a fraction from 0 to 1 or a "
            "percentage (\"99.9%\")"},
        BadPreset{
            "[destinations.x]\nhosts = [\"h\"]\n[destinations.x.sla]\nmax_loss_ratio = \"-1%\"",
            "bad.toml:4: 'sla.max_loss_ratio' of 'x' must be a fraction from 0 to 1 or a "
            "percentage (\"99.9%\")"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\n[destinations.x.sla]\nmin_rate = \"fast\"",
                  "bad.toml:4: 'sla.min_rate' of 'x' invalid rate 'fast': expected a number first"},
        BadPreset{"[destinations.x]\nhosts = [\"h\"]\n[destinations.x.sla]\nmax_delay = 5",
                  "bad.toml:4: 'sla.max_delay' of 'x' has the wrong type"},
        BadPreset{"[formats.f]\ncodec = \"h266\"",
                  "bad.toml:2: format 'f' needs a known codec (synthetic, dnxhd, v210, uyvy)"},
        BadPreset{"[formats.f]\ncodec = \"synthetic\"\nframe_rate = \"30000/0\"",
                  "bad.toml:3: 'frame_rate' of 'f' must look like 30000/1001 or 25"}),
    [](const ::testing::TestParamInfo<BadPreset>& param) {
      return "case" + std::to_string(param.index);
    });

TEST(PresetStore, ABadFileChangesNothing) {
  PresetStore store;
  store.load_text("[destinations.x]\nhosts = [\"good\"]\n", "good.toml");
  EXPECT_THROW(store.load_text("[destinations.x]\nhosts = [\"evil\"]\nbogus = 1\n", "bad.toml"),
               PresetError);
  EXPECT_EQ(destination_from(*store.find(PresetKind::destination, "x")).hosts,
            std::vector<std::string>{"good"});
}

TEST(PresetStore, SearchPathEndsWithTheUsersConfigFile) {
  const auto path = preset_search_path(std::filesystem::path("/tmp/mine.toml"));
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path.front(), installed_presets());
  EXPECT_EQ(path[1], "/etc/hdstream");
  EXPECT_EQ(path.back(), "/tmp/mine.toml");
  EXPECT_THROW(load_presets(std::filesystem::path("/nonexistent/presets.toml")), PresetError);
}

}  // namespace
}  // namespace hdstream
