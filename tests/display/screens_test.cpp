// The receiver's pictures on real screens: Xvfb with separate X screens, the real hdstream
// binary receiving feeds of distinct solid colours from a real sender over loopback, and
// screenshots (XGetImage) checked pixel by pixel. Expected geometry is worked out here from the
// screen and picture sizes, not taken from the code under test.
//   ctest --test-dir build -R 'ScreenOutput|Multiview'
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/security/process_helpers.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/wayland_server.hpp"
#include "tests/support/x_server.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::Rgb;

// sdi270 is 720x486 (v210): cheap to carry and decode on a 2-core machine. It is studio SD,
// shown 4:3 (its pixels are not square).
constexpr double kPictureAspect = 4.0 / 3.0;
constexpr Rgb kRed{255, 0, 0};
constexpr Rgb kBlue{0, 0, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGreenBorder{0x2e, 0xcc, 0x71};  // the panel's "good"
constexpr Rgb kAmber{0xf1, 0xc4, 0x0f};        // the panel's "warn": FROZEN / BLACK alarms
constexpr Rgb kSlate{0x20, 0x20, 0x20};        // NO SIGNAL

std::vector<std::string> sender(const std::string& address, std::vector<std::string> sources,
                                const std::string& duration) {
  std::vector<std::string> args{
      HDSTREAM_BINARY, "send",   "--dest",     address, "--streams", std::to_string(sources.size()),
      "--format",      "sdi270", "--duration", duration};
  for (auto& source : sources) args.insert(args.end(), {"--source", source});
  return args;
}

// The last media line of `stream` in a JSON stats file still being written.
std::optional<json> last_media(const std::filesystem::path& path, int stream) {
  std::ifstream in(path);
  std::optional<json> found;
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("type", "") == "media" && j.value("stream", -1) == stream) {
      found = j;
    }
  }
  return found;
}

// Pixels of `shot` within `area` near `colour`.
long count_near(const test::Screenshot& shot, int x0, int y0, int width, int height, Rgb colour,
                int tolerance = 40) {
  long n = 0;
  for (int y = y0; y < y0 + height; ++y) {
    for (int x = x0; x < x0 + width; ++x) n += test::near(shot.at(x, y), colour, tolerance);
  }
  return n;
}

// A feed shown on a monitor at (left, top) of `shot`: the picture fills the monitor edge to edge
// along the picture's long side, with black bars exactly where the shapes differ (3 pixels of
// slack for the scaler's filter at an edge), and nothing else on it (no frame, label, window).
void expect_fills_monitor(const test::Screenshot& shot, int left, int top, int width, int height,
                          Rgb colour) {
  SCOPED_TRACE("monitor at " + std::to_string(left) + "," + std::to_string(top));
  const double wide = static_cast<double>(width) / height;
  const double picture = kPictureAspect;
  if (wide >= picture) {  // pillarboxed: full height
    const int shown = static_cast<int>(std::lround(height * picture));
    const int x0 = left + (width - shown) / 2;
    for (int y : {top + 1, top + height / 2, top + height - 2}) {
      EXPECT_TRUE(test::near(shot.at(x0 + 3, y), colour))
          << y << " " << test::to_string(shot.at(x0 + 3, y));
      EXPECT_TRUE(test::near(shot.at(x0 + shown - 4, y), colour))
          << y << " " << test::to_string(shot.at(x0 + shown - 4, y));
      if (shown == width) continue;  // the same shape: edge to edge, no bars
      EXPECT_TRUE(test::near(shot.at(x0 - 4, y), kBlack, 4)) << y;
      EXPECT_TRUE(test::near(shot.at(x0 + shown + 3, y), kBlack, 4)) << y;
      EXPECT_TRUE(test::near(shot.at(left, y), kBlack, 4)) << y;
    }
    EXPECT_EQ(count_near(shot, x0 + 3, top, shown - 6, height, colour),
              static_cast<long>(shown - 6) * height);
  } else {  // letterboxed: full width
    const int shown = static_cast<int>(std::lround(width / picture));
    const int y0 = top + (height - shown) / 2;
    for (int x : {left + 1, left + width / 2, left + width - 2}) {
      EXPECT_TRUE(test::near(shot.at(x, y0 + 3), colour)) << x;
      EXPECT_TRUE(test::near(shot.at(x, y0 + shown - 4), colour)) << x;
      EXPECT_TRUE(test::near(shot.at(x, y0 - 4), kBlack, 4)) << x;
      EXPECT_TRUE(test::near(shot.at(x, y0 + shown + 3), kBlack, 4)) << x;
      EXPECT_TRUE(test::near(shot.at(x, top), kBlack, 4)) << x;
    }
    EXPECT_EQ(count_near(shot, left, y0 + 3, width, shown - 6, colour),
              static_cast<long>(width) * (shown - 6));
  }
}

// Feed 0 red and feed 1 blue, each on its own screen (`--output screen:{stream}`), until
// `shown` says both are up; then both ends are stopped.
void show_two_feeds(const std::vector<std::string>& display, const std::filesystem::path& dir,
                    const std::function<bool()>& shown) {
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--output",
                      "screen:{stream}", "--duration", "40s"},
                     dir, "recv", display);
  test::Process send(
      sender(address, {"videotestsrc pattern=red", "videotestsrc pattern=blue"}, "30s"), dir,
      "send");
  EXPECT_TRUE(test::eventually(shown, 30s)) << recv.err();
  send.signal(SIGINT);
  recv.signal(SIGINT);
  EXPECT_EQ(send.wait(30s), 130) << send.err();  // interrupted, as an operator ends a show
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
}

TEST(ScreenOutput, EachFeedFillsItsOwnXScreenEdgeToEdgeWithItsAspectKept) {
  const auto dir = test::scratch_dir("screen-output");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  auto x = test::XServer::xvfb({"1280x720", "1280x1024"}, dir);  // :N.0 and :N.1
  test::Screenshot screen0, screen1;
  show_two_feeds({x->environment()}, dir, [&] {
    screen0 = x->capture(0);
    screen1 = x->capture(1);
    return test::near(screen0.at(640, 360), kRed) && test::near(screen1.at(640, 512), kBlue);
  });
  ASSERT_EQ(screen0.width, 1280);
  ASSERT_EQ(screen1.height, 1024);
  expect_fills_monitor(screen0, 0, 0, 1280, 720, kRed);    // wider than 4:3: pillarboxed
  expect_fills_monitor(screen1, 0, 0, 1280, 1024, kBlue);  // 5:4, taller: letterboxed
}

TEST(ScreenOutput, EachFeedFillsItsOwnMonitorOfOneXScreen) {
  const auto dir = test::scratch_dir("screen-monitors");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  // Two RandR monitors side by side on one X screen: DUMMY0 at 0,0 and DUMMY1 at 1280,0.
  auto x = test::XServer::xorg_dummy({"1280x720", "1024x768"}, dir);
  if (!x) GTEST_SKIP() << "Xorg's dummy driver or xrandr missing (scripts/install-deps.sh)";
  test::Screenshot root;
  show_two_feeds({x->environment()}, dir, [&] {
    root = x->capture(0);
    return test::near(root.at(640, 360), kRed) && test::near(root.at(1280 + 512, 384), kBlue);
  });
  ASSERT_EQ(root.width, 2304);
  expect_fills_monitor(root, 0, 0, 1280, 720, kRed);
  expect_fills_monitor(root, 1280, 0, 1024, 768, kBlue);
}

// Under Wayland (weston, two outputs): each feed fills its own output, found as Qt lists the
// compositor's outputs; the 4:3 feed pillarboxed on the 16:9 output, edge to edge on the 4:3 one.
TEST(ScreenOutput, OnWaylandEachFeedFillsItsOwnOutput) {
  const auto dir = test::scratch_dir("screen-wayland");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  auto wl = test::Weston::start({{1280, 720}, {800, 600}}, dir);  // WL1 at 0,0; WL2 at 1280,0
  if (!wl) GTEST_SKIP() << "weston missing (scripts/install-deps.sh)";
  test::Screenshot shot;
  // A window made fullscreen is first drawn at its first size: wait for the picture to reach
  // each output's far corners (the 4:3 picture spans x 160..1119 on WL1 and all of WL2).
  show_two_feeds(wl->environment(), dir, [&] {
    try {
      shot = wl->capture();
    } catch (const std::runtime_error&) {
      return false;  // a slow screenshot on a loaded machine: the next poll tries again
    }
    if (shot.width < 2080 || shot.height < 720) return false;
    for (const auto& [x, y] : {std::pair{640, 360}, std::pair{163, 1}, std::pair{1116, 1},
                               std::pair{163, 718}, std::pair{1116, 718}}) {
      if (!test::near(shot.at(x, y), kRed)) return false;
    }
    for (const auto& [x, y] : {std::pair{1280 + 400, 300}, std::pair{1283, 1}, std::pair{2076, 1},
                               std::pair{1283, 598}, std::pair{2076, 598}}) {
      if (!test::near(shot.at(x, y), kBlue)) return false;
    }
    return true;
  });
  ASSERT_EQ(shot.width, 2080);
  ASSERT_EQ(shot.height, 720);
  expect_fills_monitor(shot, 0, 0, 1280, 720, kRed);
  expect_fills_monitor(shot, 1280, 0, 800, 600, kBlue);
}

TEST(ScreenOutput, AnUnknownScreenIsAOneLineUsageErrorListingTheScreens) {
  const auto dir = test::scratch_dir("screen-unknown");
  auto x = test::XServer::xvfb({"800x600", "640x480"}, dir);
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:0", "--streams", "1",
                      "--output", "screen:2"},
                     dir, "recv", {x->environment()});
  EXPECT_EQ(recv.wait(30s), 2);
  const std::string err = recv.err();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("no screen 2 here; screens: 0 "), std::string::npos) << err;
  EXPECT_NE(err.find("800x600+0+0, 1 "), std::string::npos) << err;
  EXPECT_NE(err.find("640x480"), std::string::npos) << err;

  test::Process layout({HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:0", "--streams", "5",
                        "--output", "multiview", "--layout", "2x2"},
                       dir, "layout", {x->environment()});
  EXPECT_EQ(layout.wait(30s), 2);
  EXPECT_NE(layout.err().find("--layout 2x2: 4 tiles for 5 feeds"), std::string::npos)
      << layout.err();
  test::Process bad({HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:0", "--output", "multiview",
                     "--layout", "9x"},
                    dir, "bad-layout", {x->environment()});
  EXPECT_EQ(bad.wait(30s), 2);
  EXPECT_NE(bad.err().find("--layout '9x': expected COLUMNSxROWS"), std::string::npos) << bad.err();
}

// `--output display`: a window per feed, side by side over the first screen, none hiding
// another (the first wave stacked them at one corner).
TEST(DisplayOutput, EveryFeedHasItsOwnWindowAndNoneHidesAnother) {
  const auto dir = test::scratch_dir("display-output");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  auto x = test::XServer::xvfb({"1280x720"}, dir);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "3", "--output",
                      "display", "--duration", "40s"},
                     dir, "recv", {x->environment()});
  test::Process send(sender(address,
                            {"videotestsrc pattern=red", "videotestsrc pattern=blue",
                             "videotestsrc pattern=green"},
                            "30s"),
                     dir, "send");
  // Three feeds on 1280x720: a 2x2 grid of 640x360 windows (no window manager under Xvfb, so
  // each sits where it was placed).
  const Rgb colours[] = {kRed, kBlue, Rgb{0, 255, 0}};
  const int centres[][2] = {{320, 180}, {960, 180}, {320, 540}};
  test::Screenshot shot;
  EXPECT_TRUE(test::eventually(
      [&] {
        shot = x->capture(0);
        for (int i = 0; i < 3; ++i) {
          if (!test::near(shot.at(centres[i][0], centres[i][1]), colours[i])) return false;
        }
        return true;
      },
      30s))
      << test::to_string(shot.at(320, 180)) << " " << test::to_string(shot.at(960, 180)) << " "
      << test::to_string(shot.at(320, 540)) << "\n"
      << recv.err();
  // Each picture fills its window's height (640x360 is wider than 4:3: pillarboxed to 480).
  for (int i = 0; i < 3; ++i) {
    const int left = (i % 2) * 640, top = (i / 2) * 360;
    expect_fills_monitor(shot, left, top, 640, 360, colours[i]);
  }
  send.signal(SIGINT);
  recv.signal(SIGINT);
  EXPECT_EQ(send.wait(30s), 130) << send.err();  // interrupted, as an operator ends a show
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
}

// POST to the receiver's telemetry port (a remote operator's cut, with the receiver's control
// key: 64 'c's); the status line's code.
int post(int port, const std::string& target) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  const std::string request =
      "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
      "\r\nAuthorization: Bearer " + std::string(64, 'c') + "\r\nConnection: close\r\n\r\n";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  char reply[64] = {};
  const auto n = ::recv(fd, reply, sizeof reply - 1, MSG_WAITALL);
  ::close(fd);
  return n > 12 ? std::atoi(reply + 9) : -1;  // "HTTP/1.1 200"
}

TEST(ProgramOutput, ACutShowsTheNewFeedWithinTwoFramePeriodsAndNeverBlack) {
  const auto dir = test::scratch_dir("program-output");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  auto x = test::XServer::xvfb({"1280x720", "1024x768"}, dir);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  const int metrics = test::free_port();
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "3", "--output",
                      "multiview", "--output", "program:1", "--metrics-listen",
                      "127.0.0.1:" + std::to_string(metrics), "--control-key-file",
                      test::write_key_file(dir, "control.key", 'c').string(), "--duration", "60s"},
                     dir, "recv", {x->environment()});
  test::Process send(sender(address,
                            {"videotestsrc pattern=red", "videotestsrc pattern=blue",
                             "videotestsrc pattern=green"},
                            "60s"),
                     dir, "send");
  constexpr Rgb kGreen{0, 255, 0};
  // Feed 0 is on air first; the projector's centre is red.
  ASSERT_TRUE(test::eventually([&] { return test::near(x->pixel(1, 512, 384), kRed); }, 30s))
      << recv.err();
  EXPECT_EQ(post(metrics, "/program?feed=7"), 409);  // no such feed: nothing changes
  EXPECT_EQ(post(metrics, "/program?feed=two"), 400);

  // Cuts: 0 -> 1 -> 2 -> 0. Each shows the new feed within two frame periods (67 ms) of the
  // request, and every capture in between is the old or the new picture, never black.
  const Rgb colours[] = {kRed, kBlue, kGreen};
  std::vector<double> cut_ms;
  for (const int feed : {1, 2, 0}) {
    const Rgb before = colours[(feed + 2) % 3];
    const auto requested = std::chrono::steady_clock::now();
    ASSERT_EQ(post(metrics, "/program?feed=" + std::to_string(feed)), 200);
    Rgb seen = x->pixel(1, 512, 384);
    while (!test::near(seen, colours[feed]) && std::chrono::steady_clock::now() - requested < 2s) {
      ASSERT_TRUE(test::near(seen, before))
          << "between the cut's pictures: " << test::to_string(seen);
      seen = x->pixel(1, 512, 384);
    }
    cut_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - requested)
            .count());
    EXPECT_TRUE(test::near(seen, colours[feed])) << test::to_string(seen);
    // The cut holds: for the next 200 ms (6 frames) the projector shows only the new feed.
    const auto shown = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - shown < 200ms) {
      seen = x->pixel(1, 512, 384);
      ASSERT_TRUE(test::near(seen, colours[feed])) << "after the cut: " << test::to_string(seen);
    }
    // The multiview's tally follows the program: the red PGM box moves to the new feed's tile
    // (2x2 on 1280x720: tiles' pictures start at (7,7), (645,7), (7,365)).
    const int tally_at[][2] = {{7, 7}, {645, 7}, {7, 365}};
    constexpr Rgb kTally{0xe7, 0x4c, 0x3c};  // the panel's "bad" red
    EXPECT_TRUE(test::eventually(
        [&] {
          const auto shot = x->capture(0);
          for (int i = 0; i < 3; ++i) {
            const long red = count_near(shot, tally_at[i][0], tally_at[i][1], 40, 20, kTally, 30);
            if ((i == feed) != (red > 200)) return false;
          }
          return true;
        },
        2s))
        << "the PGM tally is not on feed " << feed << "'s tile alone";
  }
  for (const double ms : cut_ms) EXPECT_LT(ms, 2 * 1001.0 / 30.0) << ms;
  std::printf("program cuts (request to new picture on the projector): %.1f, %.1f, %.1f ms\n",
              cut_ms[0], cut_ms[1], cut_ms[2]);
  send.signal(SIGINT);
  recv.signal(SIGINT);
  EXPECT_EQ(send.wait(30s), 130) << send.err();  // interrupted, as an operator ends a show
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
  EXPECT_NE(recv.err().find("program: feed 0 on air"), std::string::npos) << recv.err();
  // Each cut asked for over HTTP is logged with who asked.
  EXPECT_NE(recv.err().find("program: cut to feed 2 asked for over HTTP by 127.0.0.1:"),
            std::string::npos)
      << recv.err();
}

TEST(Multiview, EveryFeedInItsTileLabelledWithHealthAlarmsAndNoSignalWithinASecond) {
  const auto dir = test::scratch_dir("multiview");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  auto x = test::XServer::xvfb({"1280x720"}, dir);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  const auto stats = dir / "r.jsonl";
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "3", "--output",
                      "multiview", "--duration", "60s", "--stats", "json", "--stats-file",
                      stats.string(), "--interval", "250ms"},
                     dir, "recv", {x->environment()});
  // A solid red (frozen), moving bars, and black (frozen and black).
  test::Process send(
      sender(address,
             {"videotestsrc pattern=red", "videotestsrc pattern=smpte horizontal-speed=8",
              "videotestsrc pattern=black"},
             "60s"),
      dir, "send");

  // Three feeds: a 2x2 grid of 634x354 cells, 4 pixels apart, the first three used.
  struct Cell {
    int x, y;
  };
  const Cell cells[] = {{4, 4}, {642, 4}, {4, 362}};
  constexpr int kCellWidth = 634, kCellHeight = 354;
  auto centre = [&](const test::Screenshot& shot, int i) {
    return shot.at(cells[i].x + kCellWidth / 2, cells[i].y + kCellHeight / 2 - 20);
  };
  // The label bar: the bottom 30 rows of the cell, inside its border.
  auto label_count = [&](const test::Screenshot& shot, int i, Rgb colour) {
    return count_near(shot, cells[i].x + 4, cells[i].y + kCellHeight - 32, kCellWidth - 8, 28,
                      colour, 60);
  };
  test::Screenshot shot;
  // Health judged (green borders) and the 2 s freeze alarm raised.
  ASSERT_TRUE(test::eventually(
      [&] {
        shot = x->capture(0);
        return test::near(centre(shot, 0), kRed) && test::near(centre(shot, 2), kBlack, 8) &&
               test::near(shot.at(cells[1].x + 1, cells[1].y + 1), kGreenBorder, 8) &&
               label_count(shot, 0, kAmber) > 20 && label_count(shot, 2, kAmber) > 20;
      },
      30s))
      << "tile centres " << test::to_string(centre(shot, 0)) << " "
      << test::to_string(centre(shot, 2)) << ", border "
      << test::to_string(shot.at(cells[1].x + 1, cells[1].y + 1)) << "\n"
      << recv.err();
  // The moving bars: a picture, not black, not the slate, and no alarm.
  const Rgb bars = centre(shot, 1);
  EXPECT_FALSE(test::near(bars, kBlack, 30)) << test::to_string(bars);
  EXPECT_FALSE(test::near(bars, kSlate, 8)) << test::to_string(bars);
  EXPECT_EQ(label_count(shot, 1, kAmber), 0);
  // Every tile is labelled (white text in its bar).
  for (int i = 0; i < 3; ++i) EXPECT_GT(label_count(shot, i, Rgb{255, 255, 255}), 30) << i;
  // The same alarms in the stats (the screenshot may be a quarter of a second ahead of them).
  ASSERT_TRUE(test::eventually(
      [&] {
        const json red = last_media(stats, 0).value_or(json::object());
        const json black = last_media(stats, 2).value_or(json::object());
        return red.value("frozen", false) && black.value("frozen", false) &&
               black.value("black", false);
      },
      5s));
  const json red = *last_media(stats, 0), moving = *last_media(stats, 1),
             black = *last_media(stats, 2);
  EXPECT_FALSE(red["black"].get<bool>()) << red;
  EXPECT_FALSE(moving["frozen"].get<bool>()) << moving;
  EXPECT_FALSE(moving["black"].get<bool>()) << moving;

  // The feeds stop dead (the sender killed): every tile shows NO SIGNAL within a second.
  send.signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  ASSERT_TRUE(test::eventually(
      [&] {
        shot = x->capture(0);
        for (int i = 0; i < 3; ++i) {
          if (!test::near(centre(shot, i), kSlate, 8)) return false;
        }
        return true;
      },
      5s))
      << test::to_string(centre(shot, 0));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_LT(seconds, 1.0);
  // The slate's text is there (white pixels around the centre).
  EXPECT_GT(count_near(shot, cells[0].x + 100, cells[0].y + 100, kCellWidth - 200, 120,
                       Rgb{255, 255, 255}, 30),
            200);
  std::printf("NO SIGNAL on every tile %.2f s after the feeds stopped\n", seconds);
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
}

// Each tile meters its sound up its right edge (the same meters as the panel's): a sine at half
// scale (peak -6 dBFS, RMS -9) fills the green zone and the amber one to its RMS; a silent feed
// has an empty meter framed red and SILENT in its label once the alarm's second has passed.
TEST(Multiview, EachTileMetersItsSoundAndASilentFeedRaisesTheAlarm) {
  const auto dir = test::scratch_dir("multiview-sound");
  auto x = test::XServer::xvfb({"1280x720"}, dir);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--output", "multiview",
       "--audio-output", "null", "--silence-alarm", "1s", "--duration", "60s"},
      dir, "recv", {x->environment()});
  // Moving pictures: a still or black one would raise FROZEN / BLACK, amber in the label too.
  const std::string moving = "videotestsrc pattern=smpte horizontal-speed=8";
  auto args = sender(address, {moving, moving}, "60s");
  args.insert(args.end(), {"--audio-source", "audiotestsrc wave=sine volume=0.5", "--audio-source",
                           "audiotestsrc wave=silence"});
  test::Process send(args, dir, "send");

  // Two feeds: two 634x712 cells side by side, 7-pixel borders, 36-pixel labels; each meter
  // strip is 16 pixels wide (one 12-pixel pair) up the inner right edge, 644 pixels tall.
  constexpr int kCellX[] = {4, 642};
  constexpr int kStripX = 4 + 7 + 620 - 16, kStripY = 11, kStripWidth = 16, kStripHeight = 644;
  const Rgb kRedAlarm{0xe7, 0x4c, 0x3c};
  auto strip_count = [&](const test::Screenshot& shot, int i, Rgb colour) {
    return count_near(shot, kCellX[i] - 4 + kStripX, kStripY, kStripWidth, kStripHeight, colour, 8);
  };
  auto label_count = [&](const test::Screenshot& shot, int i, Rgb colour) {
    return count_near(shot, kCellX[i] + 7, 720 - 4 - 7 - 36, 620, 36, colour, 60);
  };
  test::Screenshot shot;
  // The track is 640 pixels for 60 dB: green to -18 dBFS is 448 rows of 12, amber from there to
  // the RMS (-9) 96 rows; half of each is plenty, and none of either on the silent feed's.
  ASSERT_TRUE(test::eventually(
      [&] {
        shot = x->capture(0);
        return strip_count(shot, 0, kGreenBorder) > 448 * 12 / 2 &&
               strip_count(shot, 0, kAmber) > 96 * 12 / 2 &&
               strip_count(shot, 1, kRedAlarm) > 600 && label_count(shot, 1, kAmber) > 20;
      },
      30s))
      << "feed 0 green " << strip_count(shot, 0, kGreenBorder) << " amber "
      << strip_count(shot, 0, kAmber) << "; feed 1 red " << strip_count(shot, 1, kRedAlarm)
      << " label amber " << label_count(shot, 1, kAmber) << "\n"
      << recv.err();
  EXPECT_EQ(strip_count(shot, 1, kGreenBorder), 0) << "silence shows no level";
  EXPECT_EQ(strip_count(shot, 0, kRedAlarm), 0) << "nothing in the red zone, no alarm frame";
  EXPECT_EQ(label_count(shot, 0, kAmber), 0) << "no alarm on the feed with sound";
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
}

// The program's sound follows its cut: the feed on air is heard, the others play on muted (so
// they are in step when cut to). The media lines say which is heard; the muting itself is
// GstAudioSink's (tests/media/gst_audio_sink_test.cpp).
TEST(ProgramOutput, TheProgramsSoundFollowsItsCut) {
  const auto dir = test::scratch_dir("program-sound");
  auto x = test::XServer::xvfb({"1280x720"}, dir);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  const int metrics = test::free_port();
  const auto stats = dir / "r.jsonl";
  const std::string key = test::write_key_file(dir, "control.key", 'c').string();
  // One option and its value a line.
  // clang-format off
  test::Process recv({HDSTREAM_BINARY,      "recv",
                      "--listen",           address,
                      "--streams",          "2",
                      "--output",           "program",
                      "--audio-output",     "null",
                      "--metrics-listen",   "127.0.0.1:" + std::to_string(metrics),
                      "--control-key-file", key,
                      "--duration",         "60s",
                      "--stats",            "json",
                      "--stats-file",       stats.string(),
                      "--interval",         "250ms"},
                     dir, "recv", {x->environment()});
  // clang-format on
  auto args = sender(address, {"videotestsrc", "videotestsrc"}, "60s");
  args.insert(args.end(), {"--audio-source", "audiotestsrc wave=sine", "--audio-source",
                           "audiotestsrc wave=sine freq=1000"});
  test::Process send(args, dir, "send");
  auto heard = [&](int stream) {
    const json line = last_media(stats, stream).value_or(json::object());
    return line.value("audio_channels", 0) == 2 ? std::optional(line.value("audio_heard", false))
                                                : std::nullopt;
  };
  // Feed 0 is on air first: it alone is heard.
  ASSERT_TRUE(test::eventually([&] { return heard(0) == true && heard(1) == false; }, 30s))
      << recv.err();
  ASSERT_EQ(post(metrics, "/program?feed=1"), 200);
  EXPECT_TRUE(test::eventually([&] { return heard(0) == false && heard(1) == true; }, 5s))
      << test::read_file(stats);
  ASSERT_EQ(post(metrics, "/program?feed=0"), 200);
  EXPECT_TRUE(test::eventually([&] { return heard(0) == true && heard(1) == false; }, 5s));
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
}

}  // namespace
}  // namespace hdstream
