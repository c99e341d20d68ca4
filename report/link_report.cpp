#include "report/link_report.hpp"

#include <QByteArray>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "common/provenance.hpp"
#include "report/tables.hpp"
#include "report/throughput_plot.hpp"

namespace hdstream {
namespace {

std::vector<std::vector<std::string>> feed_rows(const Snapshot& last) {
  std::vector<std::vector<std::string>> rows{{"feed", "state", "frames", "bytes", "drops",
                                              "checksum errors", "jitter (ms)", "RTT (ms)",
                                              "retransmits"}};
  for (const auto& s : last.streams) {
    rows.push_back({std::to_string(s.stream), std::string(to_string(s.state)),
                    std::to_string(s.frames), std::to_string(s.bytes), std::to_string(s.drops),
                    std::to_string(s.checksum_errors), fmt::format("{:.3f}", s.jitter_ms),
                    fmt::format("{:.3f}", s.rtt_ms), std::to_string(s.retransmits)});
  }
  return rows;
}

bool any_protected(const Snapshot& last) {
  return std::ranges::any_of(last.streams, [](const auto& s) { return s.protection.present; });
}

// Protected feeds (two paths): what the second path saved, per feed. Only the receiver merges
// the legs, so only its report can say which frames one leg alone delivered.
std::vector<std::vector<std::string>> protection_rows(const Snapshot& last) {
  const bool merged_here = last.role == Role::recv;
  const std::string by_receiver = "the receiver's figure";
  std::vector<std::vector<std::string>> rows{
      {"feed", "legs up", "frames protected (one path alone would have lost them)", "skew (ms)"}};
  for (const auto& s : last.streams) {
    if (!s.protection.present) continue;
    const ProtectionSnapshot& p = s.protection;
    rows.push_back({std::to_string(s.stream), fmt::format("{} of 2", p.legs_up),
                    merged_here ? std::to_string(p.protected_frames) : by_receiver,
                    merged_here ? fmt::format("{:.3f}", p.skew_ms) : by_receiver});
  }
  return rows;
}

std::vector<std::vector<std::string>> leg_rows(const Snapshot& last) {
  const bool merged_here = last.role == Role::recv;
  std::vector<std::vector<std::string>> rows{{"feed", "leg", "state", "frames", "bytes", "drops",
                                              "RTT (ms)", "retransmits",
                                              "frames only this leg delivered"}};
  for (const auto& s : last.streams) {
    if (!s.protection.present) continue;
    for (const auto& leg : s.protection.legs) {
      rows.push_back({std::to_string(s.stream), leg.leg == 0 ? "A" : "B",
                      std::string(to_string(leg.state)), std::to_string(leg.frames),
                      std::to_string(leg.bytes), std::to_string(leg.drops),
                      fmt::format("{:.3f}", leg.rtt_ms), std::to_string(leg.retransmits),
                      merged_here ? std::to_string(leg.only_frames) : "the receiver's figure"});
    }
  }
  return rows;
}

std::vector<std::vector<std::string>> summary_rows(const Summary& summary, double planned_mbps) {
  return {{"figure", "value"},
          {"verdict", summary.pass ? "PASS" : "FAIL"},
          {"feeds", std::to_string(summary.streams)},
          {"duration", fmt::format("{:.2f} s", summary.duration_s)},
          {"aggregate goodput", fmt::format("{:.1f} Mbps", summary.mbps)},
          {"planned aggregate", fmt::format("{:.1f} Mbps", planned_mbps)},
          {"frames", std::to_string(summary.frames)},
          {"bytes (verified)", std::to_string(summary.bytes)},
          {"drops", std::to_string(summary.drops)},
          {"checksum errors", std::to_string(summary.checksum_errors)}};
}

}  // namespace

void write_link_report(const std::filesystem::path& path, const LinkReportInput& input) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("--report: cannot write '{}'", path.string()));
  const auto png = render_throughput_png(input.series, input.planned_mbps);
  const auto now = utc_now();
  std::vector<std::vector<std::string>> parameters{{"parameter", "value"}};
  for (const auto& [key, value] : input.parameters) parameters.push_back({key, value});
  const bool html = path.extension() == ".html";

  if (html) {
    out << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>"
        << html_escape(input.title)
        << "</title><style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}"
           "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px "
           "8px}"
           "th{background:#f0f0f0}</style></head><body>\n";
    out << "<h1>" << html_escape(input.title) << "</h1>\n<p>Generated " << now
        << " by hdstream.</p>\n";
    out << "<h2>Verdict: " << (input.summary.pass ? "PASS" : "FAIL") << "</h2>\n<ul>\n";
    for (const auto& reason : input.summary.reasons)
      out << "<li>" << html_escape(reason) << "</li>\n";
    out << "</ul>\n<h2>Parameters</h2>\n";
    html_table(out, parameters);
    for (const auto& table : input.tables) {
      out << "<h2>" << html_escape(table.title) << "</h2>\n";
      html_table(out, table.rows);
    }
    out << "<h2>Aggregate</h2>\n";
    html_table(out, summary_rows(input.summary, input.planned_mbps));
    out << "<h2>Per feed</h2>\n";
    html_table(out, feed_rows(input.last));
    if (any_protected(input.last)) {
      out << "<h2>Protection</h2>\n";
      html_table(out, protection_rows(input.last));
      html_table(out, leg_rows(input.last));
    }
    if (!png.empty()) {
      QByteArray bytes(reinterpret_cast<const char*>(png.data()),
                       static_cast<qsizetype>(png.size()));
      out << "<h2>Throughput</h2>\n<img alt=\"throughput\" src=\"data:image/png;base64,"
          << bytes.toBase64().toStdString() << "\">\n";
    }
    out << "</body></html>\n";
  } else {
    out << "# " << input.title << "\n\nGenerated " << now << " by hdstream.\n\n";
    out << "## Verdict: " << (input.summary.pass ? "PASS" : "FAIL") << "\n\n";
    for (const auto& reason : input.summary.reasons) out << "- " << reason << '\n';
    out << "\n## Parameters\n\n";
    markdown_table(out, parameters);
    for (const auto& table : input.tables) {
      out << "## " << table.title << "\n\n";
      markdown_table(out, table.rows);
    }
    out << "## Aggregate\n\n";
    markdown_table(out, summary_rows(input.summary, input.planned_mbps));
    out << "## Per feed\n\n";
    markdown_table(out, feed_rows(input.last));
    if (any_protected(input.last)) {
      out << "## Protection\n\n";
      markdown_table(out, protection_rows(input.last));
      markdown_table(out, leg_rows(input.last));
    }
    if (!png.empty()) {
      auto plot = path;
      plot.replace_extension(".png");
      std::ofstream image(plot, std::ios::binary);
      image.write(reinterpret_cast<const char*>(png.data()),
                  static_cast<std::streamsize>(png.size()));
      out << "## Throughput\n\n![throughput](" << plot.filename().string() << ")\n";
    }
  }
  if (!out) throw std::runtime_error(fmt::format("--report: cannot write '{}'", path.string()));
}

}  // namespace hdstream
