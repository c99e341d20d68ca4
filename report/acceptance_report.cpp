#include "report/acceptance_report.hpp"

#include <QByteArray>

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/provenance.hpp"
#include "report/chart.hpp"
#include "report/tables.hpp"

namespace hdstream {
namespace {

constexpr std::uint32_t kBlue = 0x1f77b4, kOrange = 0xff7f0e, kGrey = 0x7f7f7f, kRed = 0xd62728;

std::string verdict_text(const AcceptanceResult& r) {
  return fmt::format("{}{}", r.pass ? "PASS" : "FAIL", r.complete ? "" : " (incomplete)");
}

std::string percent_text(double fraction) {
  return fmt::format("{:.4f} %", fraction * 100);
}

TableRows phase_rows(const AcceptanceResult& r) {
  TableRows rows{{"phase", "offered Mbps", "rate Mbps", "delay ms",
                  "delay variation ms p50 / p95 / p99 / max", "jitter ms", "frames lost / offered",
                  "loss ratio", "loss events (longest)", "late", "out of order / duplicate chunks",
                  "retransmission ratio", "errored / severely errored s", "availability",
                  "verdict"}};
  for (const auto& phase : r.phases) {
    const PhaseFigures& f = phase.figures;
    const auto& v = f.delay_variation_ms;
    rows.push_back(
        {fmt::format("{} ({:.0f} %){}", f.name, phase.percent,
                     phase.interrupted ? ", interrupted" : ""),
         fmt::format("{:.1f}", f.offered_mbps), fmt::format("{:.1f}", f.rate_mbps),
         fmt::format("{:.3f} ({})", f.delay_ms, to_string(f.delay_basis)),
         fmt::format("{:.3f} / {:.3f} / {:.3f} / {:.3f}", v.p50, v.p95, v.p99, v.max),
         fmt::format("{:.3f}", f.jitter_ms),
         fmt::format("{} / {}", f.frames_lost, f.frames_offered), ratio_text(f.loss_ratio),
         fmt::format("{} ({})", f.loss_events, f.longest_loss_run), std::to_string(f.late_frames),
         fmt::format("{} / {}", f.out_of_order_chunks, f.duplicate_chunks),
         ratio_text(f.retransmission_ratio),
         fmt::format("{} / {}", f.errored_seconds, f.severely_errored_seconds),
         percent_text(f.availability), phase.pass ? "PASS" : "FAIL"});
  }
  return rows;
}

TableRows criteria_rows(const AcceptanceResult& r) {
  const AcceptanceCriteria& c = r.criteria;
  return {{"criterion", "threshold", "judged on"},
          {"information rate",
           fmt::format("≥ {:.1f} % of the rate offered", c.min_rate_fraction * 100), "every phase"},
          {"frame delay", fmt::format("≤ {:.3f} ms", c.max_delay_ms), "every phase"},
          {"frame delay variation (p99)", fmt::format("≤ {:.3f} ms", c.max_delay_variation_ms),
           "every phase"},
          {"frame loss ratio", fmt::format("≤ {}", ratio_text(c.max_loss_ratio)), "every phase"},
          {"availability", fmt::format("≥ {}", percent_text(c.min_availability)), "the soak"},
          {"severely errored second",
           fmt::format("more than {:.0f} % of its frames lost", c.severe_loss_fraction * 100),
           "(definition)"}};
}

TableRows results_rows(const AcceptancePhase& phase) {
  TableRows rows{{"criterion", "measured", "threshold", "margin", "verdict"}};
  for (const auto& c : phase.results) {
    rows.push_back({c.name, c.measured, c.threshold, c.margin,
                    !c.judged ? "n/a"
                    : c.pass  ? "PASS"
                              : "FAIL"});
  }
  return rows;
}

TableRows path_rows(const AcceptanceResult& r) {
  TableRows rows{{"check", "measured", "verdict"}};
  for (const auto& fact : r.path)
    rows.push_back({fact.name, fact.measured, fact.ok ? "PASS" : "FAIL"});
  return rows;
}

// "10.0.0.2:9000 (portland-rx (hdstream 0.1.0)), 10.0.0.2:9001 (did not name itself)"
std::string receivers_text(const std::vector<ReceiverInfo>& receivers) {
  std::vector<std::string> each;
  for (const auto& r : receivers) {
    each.push_back(
        fmt::format("{} ({})", r.endpoint, r.name.empty() ? "did not name itself" : r.name));
  }
  return fmt::format("{}", fmt::join(each, ", "));
}

TableRows parameter_rows(const AcceptanceResult& r) {
  TableRows rows{{"parameter", "value"},
                 {"started", r.started_utc},
                 {"sending host", r.host},
                 {"receivers", receivers_text(r.receivers)},
                 {"hdstream", hdstream_version()}};
  for (const auto& [key, value] : r.parameters) rows.push_back({key, value});
  return rows;
}

// The phases laid end to end on one time axis.
struct Plots {
  std::vector<std::pair<std::string, std::vector<std::byte>>> images;  // (title, PNG)
};

Plots render_plots(const AcceptanceResult& r) {
  Chart rate{.title = "Information rate", .y_label = "Mbps"};
  Chart delay{.title = "Frame delay and its variation", .y_label = "ms"};
  Chart loss{.title = "Frames lost per second (severely errored seconds shaded)",
             .y_label = "frames"};
  ChartSeries received{.name = "received", .rgb = kBlue};
  ChartSeries offered{.name = "offered", .rgb = kGrey, .style = ChartSeries::Style::dashed};
  ChartSeries delay_line{.name = "delay", .rgb = kBlue};
  ChartSeries variation{.name = "delay variation (p99 of each phase)",
                        .rgb = kOrange,
                        .style = ChartSeries::Style::dashed};
  ChartSeries lost{.name = "lost", .rgb = kRed, .style = ChartSeries::Style::bars};
  double t0 = 0;
  for (const auto& phase : r.phases) {
    const PhaseFigures& f = phase.figures;
    for (const auto& s : f.by_second) {
      if (s.frames_offered == 0) continue;
      received.points.emplace_back(t0 + s.t, s.rate_mbps);
      if (s.delay_samples > 0) delay_line.points.emplace_back(t0 + s.t, s.delay_ms);
      lost.points.emplace_back(t0 + s.t, static_cast<double>(s.frames_lost));
      if (s.severely_errored) loss.shaded.emplace_back(t0 + s.t, t0 + s.t + 1);
    }
    offered.points.emplace_back(t0, f.offered_mbps);
    offered.points.emplace_back(t0 + f.seconds, f.offered_mbps);
    variation.points.emplace_back(t0, f.delay_variation_ms.p99);
    variation.points.emplace_back(t0 + f.seconds, f.delay_variation_ms.p99);
    t0 += f.seconds;
    for (Chart* chart : {&rate, &delay, &loss}) chart->dividers.push_back(t0);
  }
  rate.series = {offered, received};
  delay.series = {delay_line, variation};
  loss.series = {lost};
  Plots plots{{{rate.title, render_chart_png(rate)},
               {delay.title, render_chart_png(delay)},
               {loss.title, render_chart_png(loss)}}};
  for (const auto& [title, png] : plots.images) {
    if (png.empty()) throw std::runtime_error("--report: Qt could not render the plot " + title);
  }
  return plots;
}

// The block the engineer signs: what the run says, and room for the signature.
TableRows sign_off_rows(const AcceptanceResult& r) {
  return {{"sign-off", ""},
          {"Engineer", r.sign_off.engineer},
          {"Link", r.sign_off.link_id},
          {"Date", r.started_utc.substr(0, 10)},
          {"Notes", r.sign_off.text},
          {"Signature", ""}};
}

void write_markdown(std::ostream& out, const std::filesystem::path& path, const AcceptanceResult& r,
                    const Plots& plots) {
  out << "# Link acceptance: " << r.destination << "\n\n";
  out << "**Verdict: " << verdict_text(r) << "** — generated " << utc_now() << " by hdstream "
      << hdstream_version() << ".\n\n";
  out << "## Parameters\n\n";
  markdown_table(out, parameter_rows(r));
  out << "## The path as measured\n\n";
  markdown_table(out, path_rows(r));
  out << "## Criteria\n\n";
  markdown_table(out, criteria_rows(r));
  out << "## Ramp and soak\n\n";
  markdown_table(out, phase_rows(r));
  for (const auto& phase : r.phases) {
    out << "### " << phase.figures.name << "\n\n";
    markdown_table(out, results_rows(phase));
  }
  out << "## Plots\n\n";
  int index = 0;
  for (const auto& [title, png] : plots.images) {
    auto file = path;
    file.replace_extension(fmt::format(".plot{}.png", ++index));
    std::ofstream image(file, std::ios::binary);
    image.write(reinterpret_cast<const char*>(png.data()),
                static_cast<std::streamsize>(png.size()));
    image.close();
    if (!image) throw std::runtime_error(fmt::format("--report: cannot write '{}'", file.string()));
    out << "![" << title << "](" << file.filename().string() << ")\n\n";
  }
  out << "## Sign-off\n\n";
  markdown_table(out, sign_off_rows(r));
}

void write_html(std::ostream& out, const AcceptanceResult& r, const Plots& plots) {
  const std::string title = "Link acceptance: " + r.destination;
  out << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" << html_escape(title)
      << "</title>\n<style>\n"
         "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#111}\n"
         "table{border-collapse:collapse;margin:0.8em 0;font-size:13px}\n"
         "td,th{border:1px solid #bbb;padding:3px 7px;text-align:left;vertical-align:top}\n"
         "th{background:#eee}\n"
         ".pass{background:#d9f2d9;font-weight:bold}.fail{background:#f8d0d0;font-weight:bold}\n"
         ".verdict{font-size:28px;padding:8px 14px;display:inline-block;border-radius:4px}\n"
         "img{max-width:100%;border:1px solid #ddd}\n"
         ".signoff td{height:2.2em;min-width:26em}\n"
         "@media print{body{margin:0;max-width:none}h2{page-break-after:avoid}"
         "table,img{page-break-inside:avoid}}\n"
         "</style></head><body>\n";
  out << "<h1>" << html_escape(title) << "</h1>\n";
  out << "<p><span class=\"verdict " << (r.pass ? "pass" : "fail") << "\">"
      << html_escape(verdict_text(r)) << "</span></p>\n";
  out << "<p>Generated " << utc_now() << " by hdstream " << html_escape(hdstream_version())
      << ".</p>\n";
  out << "<h2>Parameters</h2>\n";
  html_table(out, parameter_rows(r));
  out << "<h2>The path as measured</h2>\n";
  html_table(out, path_rows(r));
  out << "<h2>Criteria</h2>\n";
  html_table(out, criteria_rows(r));
  out << "<h2>Ramp and soak</h2>\n";
  html_table(out, phase_rows(r));
  for (const auto& phase : r.phases) {
    out << "<h3>" << html_escape(phase.figures.name) << "</h3>\n";
    html_table(out, results_rows(phase));
  }
  out << "<h2>Plots</h2>\n";
  for (const auto& [plot_title, png] : plots.images) {
    QByteArray bytes(reinterpret_cast<const char*>(png.data()), static_cast<qsizetype>(png.size()));
    out << "<p><img alt=\"" << html_escape(plot_title) << "\" src=\"data:image/png;base64,"
        << bytes.toBase64().toStdString() << "\"></p>\n";
  }
  out << "<h2>Sign-off</h2>\n<table class=\"signoff\">\n";
  const TableRows sign_off = sign_off_rows(r);
  for (std::size_t i = 1; i < sign_off.size(); ++i) {
    out << "<tr><th>" << html_escape(sign_off[i][0]) << "</th><td>" << html_escape(sign_off[i][1])
        << "</td></tr>\n";
  }
  out << "</table>\n</body></html>\n";
}

}  // namespace

void write_acceptance_report(const std::filesystem::path& path, const AcceptanceResult& result) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("--report: cannot write '{}'", path.string()));
  const Plots plots = render_plots(result);
  if (path.extension() == ".html") {
    write_html(out, result, plots);
  } else {
    write_markdown(out, path, result, plots);
  }
  out.close();  // a full disk shows at the last flush
  if (!out) throw std::runtime_error(fmt::format("--report: cannot write '{}'", path.string()));
}

}  // namespace hdstream
