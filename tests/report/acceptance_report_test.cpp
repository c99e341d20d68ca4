// The acceptance report (report/acceptance_report.cpp) from a run whose figures are known: the
// verdict, every table, each criterion with its margin, hostile text escaped, the plots checked
// pixel by pixel, the sign-off block; the HTML page self-contained, rendered by a real headless
// Chromium (screenshot checked pixel by pixel) and printed to PDF.
#include "report/acceptance_report.hpp"

#include <gtest/gtest.h>

#include <QImage>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "report/chart.hpp"
#include "tests/report/image_checks.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

using test::colour_near;
using test::read_text;

// A phase of `seconds` at 30 fps on one feed, losing every frame of the seconds in `cut`.
AcceptancePhase phase(std::string name, double percent, int seconds, bool soak,
                      std::vector<int> cut = {}) {
  FeedRecord feed{.stream = 0, .frame_rate = 30};
  feed.frames_offered = static_cast<std::uint64_t>(seconds) * 30;
  for (std::uint32_t seq = 0; seq < feed.frames_offered; ++seq) {
    const int second = static_cast<int>(seq / 30);
    if (std::find(cut.begin(), cut.end(), second) != cut.end()) continue;
    feed.delivered.push_back({.frame_seq = seq, .transit_us = 2000 + static_cast<int>(seq % 7)});
  }
  feed.frames_reported = feed.delivered.size();
  feed.bytes_delivered = feed.frames_reported * 1'125'000 * percent / 100;
  PhaseInput input{.name = std::move(name),
                   .offered_mbps = 270 * percent / 100,
                   .delay_basis = DelayBasis::one_way,
                   .feeds = {feed}};
  AcceptancePhase p{.figures = measure_phase(input, 0.3), .percent = percent, .soak = soak};
  p.results = evaluate(AcceptanceCriteria{}, p.figures, soak);
  p.pass = all_pass(p.results);
  return p;
}

AcceptanceResult failing_run() {
  AcceptanceResult r{
      .destination = "portland <b>",
      .started_utc = "2026-11-27T12:00:00Z",
      .host = "seattle-1",
      .receivers = {{"portland-1:9000", "portland-rx <i> (hdstream 0.1.0)"},
                    {"portland-1:9001", ""}},
      .parameters = {{"transport", "tcp"}, {"source", "a|b"}},
      .path = {{.name = "RTT", .measured = "4.01 ms", .ok = true}},
      .complete = true,
      .sign_off = {
          .engineer = "J. Operator", .link_id = "PDX|SEA-01", .text = "<script>alert(1)</script>"}};
  r.phases.push_back(phase("step 1 of 2", 50, 10, false));
  r.phases.push_back(phase("step 2 of 2", 100, 10, false));
  r.phases.push_back(phase("soak", 100, 40, true, {20, 21, 22}));  // a 3 s cut
  r.pass = acceptance_verdict(r);
  return r;
}

TEST(AcceptanceReport, TheRunBehindTheReportFailsOnlyInTheSoak) {
  const AcceptanceResult r = failing_run();
  EXPECT_TRUE(r.phases[0].pass);
  EXPECT_TRUE(r.phases[1].pass);
  EXPECT_FALSE(r.phases[2].pass);
  EXPECT_EQ(r.phases[2].figures.severely_errored_seconds, 3u);
  EXPECT_FALSE(r.pass);
}

TEST(AcceptanceReport, MarkdownHoldsEveryTableCriterionAndPlotWithHostileTextEscaped) {
  const auto dir = test::scratch_dir("acceptance-report-md");
  write_acceptance_report(dir / "link.md", failing_run());
  const std::string text = read_text(dir / "link.md");
  EXPECT_NE(text.find("**Verdict: FAIL**"), std::string::npos) << text;
  EXPECT_NE(text.find("| source | a\\|b |"), std::string::npos) << text;
  EXPECT_NE(text.find("| Link | PDX\\|SEA-01 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| Engineer | J. Operator |"), std::string::npos) << text;
  EXPECT_NE(text.find("| receivers | portland-1:9000 (portland-rx &lt;i&gt; (hdstream 0.1.0)), "
                      "portland-1:9001 (did not name itself) |"),
            std::string::npos)
      << text;
  // The soak's availability: 3 severely errored seconds of 40, and its margin.
  EXPECT_NE(text.find("| availability | 92.5000 % (3 severely errored of 40 s) | ≥ 99.9000 % | "
                      "-7.4000 % | FAIL |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| frame loss ratio | 0.075 (90 of 1200 frames) |"), std::string::npos);
  for (int plot = 1; plot <= 3; ++plot) {
    const auto png = dir / ("link.plot" + std::to_string(plot) + ".png");
    EXPECT_NE(text.find(png.filename().string()), std::string::npos);
    EXPECT_FALSE(QImage(QString::fromStdString(png.string())).isNull()) << png;
  }
}

// The loss plot (the third): 960 x 340, plot area x 80..940, y 40..294, time 0..60 s over the
// three phases laid end to end; the soak's cut is seconds 40..43 of that axis.
TEST(AcceptanceReport, TheLossPlotShadesAndBarsTheCutWhereItHappened) {
  const auto dir = test::scratch_dir("acceptance-report-plot");
  write_acceptance_report(dir / "link.md", failing_run());
  const QImage loss(QString::fromStdString((dir / "link.plot3.png").string()));
  ASSERT_EQ(loss.size(), QSize(960, 340));
  auto x_of = [](double t) { return static_cast<int>(80 + t / 60 * 860); };
  const QColor red(0xd6, 0x27, 0x28), shade(255, 215, 215);
  EXPECT_TRUE(colour_near(loss, x_of(41.3), 250, red));            // a bar in the cut
  EXPECT_EQ(loss.pixelColor(x_of(41.3), 60), shade);               // shaded above the bar
  EXPECT_EQ(loss.pixelColor(x_of(30.5), 250), QColor(Qt::white));  // before the cut: nothing
  EXPECT_EQ(loss.pixelColor(x_of(45.5), 60), QColor(Qt::white));   // after it: not shaded
}

TEST(AcceptanceReport, HtmlIsOnePageWithItsPlotsInlineAndHostileTextEscaped) {
  const auto dir = test::scratch_dir("acceptance-report-html");
  write_acceptance_report(dir / "link.html", failing_run());
  const std::string html = read_text(dir / "link.html");
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("Link acceptance: portland &lt;b&gt;"), std::string::npos);
  EXPECT_NE(html.find("portland-1:9000 (portland-rx &lt;i&gt; (hdstream 0.1.0))"),
            std::string::npos);
  const std::regex image("<img[^>]*src=\"([^\"]*)\"");
  int images = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), image);
       it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE((*it)[1].str().starts_with("data:image/png;base64,")) << "not inline";
    ++images;
  }
  EXPECT_EQ(images, 3);
  EXPECT_FALSE(std::filesystem::exists(dir / "link.plot1.png"));
  EXPECT_NE(html.find("<td class=\"fail\">FAIL</td>"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
}

// A real browser: headless Chromium renders the page; the screenshot shows the FAIL badge's red
// and the plots' blue, and the page prints to a PDF.
TEST(AcceptanceReport, ChromiumRendersThePageAndPrintsItToPdf) {
  const char* chromium = "/usr/bin/chromium";
  ASSERT_TRUE(std::filesystem::exists(chromium)) << "scripts/install-deps.sh installs chromium";
  const auto dir = test::scratch_dir("acceptance-report-chromium");
  write_acceptance_report(dir / "link.html", failing_run());
  const std::string url = "file://" + (dir / "link.html").string();
  const std::vector<std::string> common{
      chromium,        "--headless",        "--no-sandbox",
      "--disable-gpu", "--hide-scrollbars", "--user-data-dir=" + (dir / "profile").string()};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), common.begin(), common.end());
    test::Process browser(args, dir, "chromium");
    return browser.wait(std::chrono::seconds(120));
  };
  ASSERT_EQ(run({"--window-size=1200,5000", "--screenshot=" + (dir / "page.png").string(), url}),
            0);
  const QImage page(QString::fromStdString((dir / "page.png").string()));
  ASSERT_FALSE(page.isNull());
  int badge = 0, blue = 0;
  for (int y = 0; y < page.height(); y += 2) {
    for (int x = 0; x < page.width(); x += 2) {
      const QColor pixel = page.pixelColor(x, y);
      badge += pixel == QColor(0xf8, 0xd0, 0xd0);
      blue += test::tint_of(pixel, QColor(0x1f, 0x77, 0xb4));
    }
  }
  EXPECT_GT(badge, 500) << "the FAIL badge and cells";
  EXPECT_GT(blue, 200) << "the plots' lines";
  ASSERT_EQ(run({"--print-to-pdf=" + (dir / "page.pdf").string(), url}), 0);
  const std::string pdf = read_text(dir / "page.pdf");
  EXPECT_TRUE(pdf.starts_with("%PDF-"));
  const std::regex page_object("/Type\\s*/Page[^s]");
  EXPECT_GE(std::distance(std::sregex_iterator(pdf.begin(), pdf.end(), page_object),
                          std::sregex_iterator()),
            2)
      << "a report of three phases fills more than one printed page";
}

}  // namespace
}  // namespace hdstream
