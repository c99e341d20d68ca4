// `hdstream monitor`'s pictures end to end in one process: a real metrics server serves
// /stats.json with 40 decoded feeds and /thumbnail JPEGs (made by Qt's encoder), a real
// StatsPoller fetches them over loopback HTTP, and host_pictures hands the panel Qt images. A
// hostile host gets no further: bytes that are not a JPEG, a JPEG claiming 3000x3000 and a
// 300 KB answer give no picture, and the poller fetches at most 32 feeds a host.
#include "gui/host_pictures.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <QtCore/QBuffer>
#include <QtGui/QGuiApplication>

#include "loopback_feeds.hpp"
#include "telemetry/metrics_server.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

std::string jpeg_of(QColor color, QSize size = QSize(128, 72)) {
  QImage image(size, QImage::Format_RGB32);
  image.fill(color);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  EXPECT_TRUE(image.save(&buffer, "JPEG", size.width() > 128 ? 1 : 90));
  return bytes.toStdString();
}

TEST(HostPictures, TheReceivingHostsJpegsBecomeThePanelsPictures) {
  static int argc = 1;
  static char name[] = "host_pictures_test";
  static char* argv[] = {name, nullptr};
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);

  std::atomic<int> colour{0};  // feed 0: red, then blue
  const std::string red = jpeg_of(QColor(255, 0, 0));
  const std::string blue = jpeg_of(QColor(0, 0, 255));
  const std::string huge = jpeg_of(QColor(0, 255, 0), QSize(3000, 3000));
  ASSERT_LT(huge.size(), StatsPoller::kMaxPictureBytes) << "a small file claiming a big picture";
  asio::io_context io;
  MetricsServerOptions options;
  options.listen = Endpoint{"127.0.0.1", 0};
  options.thumbnail = [&](int feed) -> std::optional<std::string> {
    if (feed == 0) return colour.load() == 0 ? red : blue;
    if (feed == 1) return std::string("\xFF\xD8 not really a picture");
    if (feed == 2) return huge;
    if (feed == 3) return std::string(300 * 1024, 'x');
    return red;
  };
  auto server = std::make_shared<MetricsServer>(io, options, [] {
    LabeledSnapshot source{"portland", "0.0.0.0:9000", {}};
    source.snapshot.role = Role::recv;
    for (std::uint16_t id = 0; id < 40; ++id) {
      StreamSnapshot s;
      s.stream = id;
      s.state = StreamState::running;
      s.media = true;
      source.snapshot.streams.push_back(s);
    }
    return std::vector<LabeledSnapshot>{source};
  });
  server->start();
  const Endpoint host{"127.0.0.1", server->local_endpoint().port};
  auto poller =
      std::make_shared<StatsPoller>(io, std::vector<Endpoint>{host},
                                    StatsPollerOptions{.interval = 200ms, .fetch_pictures = true});
  poller->start();
  std::jthread runner([&] { io.run(); });
  // Whatever happens below, the loop stops before `runner` joins it.
  const std::shared_ptr<void> stop_all(nullptr, [&](void*) {
    poller->stop();
    server->stop();
    io.stop();
  });

  const auto pictures_fetched = [&] {
    std::size_t count = 0;
    for (std::uint16_t stream = 0; stream < 40; ++stream) {
      count += poller->picture(host.to_string(), stream) != nullptr;
    }
    return count;
  };
  // 32 fetched (feed 3's 300 KB answer is refused, so 31 pictures), never more.
  ASSERT_TRUE(testing::wait_until(
      [&] { return pictures_fetched() == StatsPoller::kMaxPicturesPerHost - 1; }, 20s))
      << pictures_fetched();
  // Two more polls later (each fetching again): still 31.
  const auto polls = poller->latest().at(0).polls_ok;
  ASSERT_TRUE(
      testing::wait_until([&] { return poller->latest().at(0).polls_ok >= polls + 3; }, 20s));
  EXPECT_EQ(pictures_fetched(), StatsPoller::kMaxPicturesPerHost - 1);
  EXPECT_FALSE(poller->picture(host.to_string(), 3)) << "a 300 KB answer is not kept";
  for (std::uint16_t stream = 32; stream < 40; ++stream) {
    EXPECT_FALSE(poller->picture(host.to_string(), stream)) << "feed " << stream;
  }

  const auto pictures = host_pictures(poller);
  FeedRow row;
  row.key = "0@0.0.0.0:9000";
  row.has_picture = true;
  row.picture_from = host.to_string();
  const auto first = pictures(row);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->image.size(), QSize(128, 72));
  const QColor centre = first->image.pixelColor(64, 36);
  EXPECT_GT(centre.red(), 240);
  EXPECT_LT(centre.blue(), 20);

  // A new picture on the host: a new sequence number and the new colours.
  colour = 1;
  ASSERT_TRUE(testing::wait_until(
      [&] {
        const auto next = pictures(row);
        return next && next->seq > first->seq;
      },
      10s));
  const QColor after = pictures(row)->image.pixelColor(64, 36);
  EXPECT_GT(after.blue(), 240);
  EXPECT_LT(after.red(), 20);

  // Bytes that are not a JPEG: no picture (the panel's NO SIGNAL slate).
  FeedRow garbage = row;
  garbage.key = "1@0.0.0.0:9000";
  garbage.stream = 1;
  EXPECT_FALSE(pictures(garbage));
  // A JPEG that claims 3000x3000: not decoded, no picture.
  FeedRow big = row;
  big.key = "2@0.0.0.0:9000";
  big.stream = 2;
  EXPECT_TRUE(poller->picture(host.to_string(), 2)) << "fetched (small enough)...";
  EXPECT_FALSE(pictures(big)) << "...but never decoded at its claimed size";
  // Beyond the 32 fetched, and for a host the monitor does not poll: none.
  FeedRow beyond = row;
  beyond.key = "35@0.0.0.0:9000";
  beyond.stream = 35;
  EXPECT_FALSE(pictures(beyond));
  FeedRow elsewhere = row;
  elsewhere.picture_from = "198.18.0.9:9100";
  EXPECT_FALSE(pictures(elsewhere));
}

}  // namespace
}  // namespace hdstream
