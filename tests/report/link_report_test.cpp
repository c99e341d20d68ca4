// Link reports (report/): the recorder's series, the throughput plot checked pixel by pixel, and
// the Markdown and HTML reports, hostile parameter text and protected feeds included. Real Qt,
// offscreen.
#include "report/link_report.hpp"

#include <gtest/gtest.h>

#include <QByteArray>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "report/link_recorder.hpp"
#include "report/throughput_plot.hpp"
#include "tests/report/image_checks.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

using test::colour_near;
using test::decode_png;
using test::read_text;

// Two feeds at 40 and 60 Mbps for 10 s, planned 120 Mbps in all.
std::vector<ThroughputPoint> two_feeds() {
  std::vector<ThroughputPoint> series;
  for (int t = 1; t <= 10; ++t) series.push_back({double(t), 100.0, {40.0, 60.0}});
  return series;
}

LinkReportInput failing_input() {
  LinkReportInput input;
  input.title = "hdstream send <script>alert(1)</script>";
  input.parameters = {{"destination", "portland"}, {"source", "file:a|b*.mxf"}};
  input.series = two_feeds();
  input.planned_mbps = 120;
  input.last.streams.resize(2);
  input.summary.streams = 2;
  input.summary.pass = false;
  input.summary.reasons = {"3 frames dropped",
                           "stream 1 was cut off at the end (4.1 s without a session)"};
  return input;
}

TEST(LinkRecorder, KeepsEachIntervalsAggregateAndPerFeedRate) {
  LinkRecorder recorder;
  Snapshot snapshot;
  snapshot.streams.resize(2);
  for (int t = 1; t <= 3; ++t) {
    snapshot.t = t;
    snapshot.streams[0].mbps = 10.0 * t;
    snapshot.streams[1].mbps = 5.0;
    recorder.add(snapshot);
  }
  const auto series = recorder.series();
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[2].t, 3.0);
  EXPECT_EQ(series[2].aggregate_mbps, 35.0);
  EXPECT_EQ(series[2].stream_mbps, (std::vector<double>{30.0, 5.0}));
}

// The chart's geometry (report/throughput_plot.cpp): 960 x 480, plot area from x 80 to 940 and
// y 40 to 430; the y axis runs to 1.15 x the larger of planned and peak.
TEST(ThroughputPlot, DrawsEachFeedTheAggregateAndThePlannedRateWhereTheyBelong) {
  const QImage image = decode_png(render_throughput_png(two_feeds(), 120));
  ASSERT_EQ(image.size(), QSize(960, 480));
  const double y_max = 120 * 1.15;
  auto y_of = [&](double mbps) { return static_cast<int>(std::lround(430 - mbps / y_max * 390)); };
  const int x = 80 + 860 / 2;                                          // t = 5 s
  EXPECT_TRUE(colour_near(image, x, y_of(40), QColor(31, 119, 180)));  // feed 0
  EXPECT_TRUE(colour_near(image, x, y_of(60), QColor(255, 127, 14)));  // feed 1
  EXPECT_TRUE(colour_near(image, x, y_of(100), Qt::black));
  EXPECT_FALSE(colour_near(image, x, y_of(40),
                           QColor(255, 127, 14)));  // not feed 1's colour            // aggregate
  // The planned rate is dashed grey: along its row, grey dashes and white gaps alternate
  // (a 1.5 px pen dashes 6 px on, 3 px off: about 90 dashes over 800 px).
  int dashes = 0, grey = 0;
  bool in_dash = false;
  for (int column = 100; column < 900; ++column) {
    const bool dash = colour_near(image, column, y_of(120), QColor(120, 120, 120), 1);
    grey += dash;
    if (dash && !in_dash) ++dashes;
    in_dash = dash;
  }
  EXPECT_GT(dashes, 60);
  EXPECT_GT(grey, 400);
  // Nothing is drawn where no figure is: between 60 and 100 Mbps the plot is background.
  EXPECT_EQ(image.pixelColor(x, y_of(80)), QColor(Qt::white));
}

TEST(LinkReport, MarkdownNamesTheVerdictAndReasonsWithThePlotBesideIt) {
  const auto path = test::scratch_dir("link-report-md") / "link.md";
  write_link_report(path, failing_input());
  const std::string text = read_text(path);
  EXPECT_NE(text.find("## Verdict: FAIL\n\n- 3 frames dropped\n- stream 1 was cut off at the end "
                      "(4.1 s without a session)\n"),
            std::string::npos)
      << text;
  // A `|` in a value is escaped, so the row keeps its two cells.
  EXPECT_NE(text.find("| source | file:a\\|b*.mxf |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| verdict | FAIL |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("![throughput](link.png)"), std::string::npos);
  EXPECT_EQ(QImage(QString::fromStdString((path.parent_path() / "link.png").string())).size(),
            QSize(960, 480));
}

TEST(LinkReport, HtmlIsOneFileWithTheTextEscapedAndThePlotEmbedded) {
  const auto path = test::scratch_dir("link-report-html") / "link.html";
  write_link_report(path, failing_input());
  const std::string html = read_text(path);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("hdstream send &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("<td>file:a|b*.mxf</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<h2>Verdict: FAIL</h2>\n<ul>\n<li>3 frames dropped</li>"),
            std::string::npos);
  const std::string prefix = "data:image/png;base64,";
  const auto at = html.find(prefix);
  ASSERT_NE(at, std::string::npos);
  const auto end = html.find('"', at);
  const QByteArray png = QByteArray::fromBase64(
      QByteArray::fromStdString(html.substr(at + prefix.size(), end - at - prefix.size())));
  EXPECT_EQ(QImage::fromData(png, "PNG").size(), QSize(960, 480));
  EXPECT_FALSE(std::filesystem::exists(path.parent_path() / "link.png"));
}

// A protected feed (1) beside a plain one (0), as `role` saw them at the end.
LinkReportInput protected_input(Role role) {
  LinkReportInput input = failing_input();
  input.last.role = role;
  input.last.streams[1].stream = 1;
  ProtectionSnapshot& p = input.last.streams[1].protection;
  p.present = true;
  p.protected_frames = role == Role::recv ? 151 : 0;  // only the receiver merges
  p.legs_up = 1;
  p.skew_ms = role == Role::recv ? 48.3334 : 0;
  p.legs = {
      LegSnapshot{0, StreamState::waiting, 5000, 0, 20, 3, 20.5, 2, 0},
      LegSnapshot{1, StreamState::running, 9000, 101.5, 171, 0, 35.25, 0,
                  role == Role::recv ? 151u : 0u},
  };
  return input;
}

TEST(LinkReport, AProtectedFeedHasAProtectionSectionWithEachLeg) {
  const auto dir = test::scratch_dir("link-report-protection");
  write_link_report(dir / "recv.md", protected_input(Role::recv));
  const std::string text = read_text(dir / "recv.md");
  const auto section = text.find("## Protection\n\n");
  ASSERT_NE(section, std::string::npos) << text;
  EXPECT_GT(section, text.find("## Per feed")) << "after the per-feed figures";
  EXPECT_NE(text.find("| feed | legs up | frames protected (one path alone would have lost them) "
                      "| skew (ms) |\n|---|---|---|---|\n| 1 | 1 of 2 | 151 | 48.333 |\n\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 1 | A | waiting | 20 | 5000 | 3 | 20.500 | 2 | 0 |\n"
                      "| 1 | B | running | 171 | 9000 | 0 | 35.250 | 0 | 151 |\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("| 0 | A |"), std::string::npos) << "feed 0 is a plain feed";

  write_link_report(dir / "recv.html", protected_input(Role::recv));
  const std::string html = read_text(dir / "recv.html");
  EXPECT_NE(html.find("<h2>Protection</h2>\n<table>\n"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>1</td><td>1 of 2</td><td>151</td><td>48.333</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td>1</td><td>B</td><td>running</td><td>171</td><td>9000</td><td>0</"
                      "td><td>35.250</td><td>0</td><td>151</td></tr>"),
            std::string::npos)
      << html;
}

// The sender's report (send --report): the legs as it sent them; what the second path saved is
// counted where the legs merge, and its report says so rather than showing a 0.
TEST(LinkReport, ASendersReportLeavesTheProtectedCountToTheReceiver) {
  const auto path = test::scratch_dir("link-report-protection-send") / "send.md";
  write_link_report(path, protected_input(Role::send));
  const std::string text = read_text(path);
  EXPECT_NE(text.find("| 1 | 1 of 2 | the receiver's figure | the receiver's figure |\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 1 | B | running | 171 | 9000 | 0 | 35.250 | 0 | the receiver's figure |"),
            std::string::npos)
      << text;
}

TEST(LinkReport, PlainFeedsHaveNoProtectionSection) {
  const auto dir = test::scratch_dir("link-report-plain");
  write_link_report(dir / "link.md", failing_input());
  write_link_report(dir / "link.html", failing_input());
  EXPECT_EQ(read_text(dir / "link.md").find("Protection"), std::string::npos);
  EXPECT_EQ(read_text(dir / "link.html").find("Protection"), std::string::npos);
}

TEST(LinkReport, AnUnwritablePathIsOneLineNamingIt) {
  const auto path = test::scratch_dir("link-report-bad") / "no-such-dir" / "link.md";
  try {
    write_link_report(path, failing_input());
    ADD_FAILURE() << "wrote " << path;
  } catch (const std::runtime_error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace hdstream
