#include "report/tables.hpp"

#include <QString>

namespace hdstream {
namespace {

// A table cell's text in Markdown: a `|` would end the cell, a newline the row, and `<` or `&`
// start inline HTML or an entity in most renderers (a receiver's name is a peer's text).
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '\n':
        out += ' ';
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

void markdown_table(std::ostream& out, const TableRows& rows) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out << '|';
    for (const auto& cell : rows[r]) out << ' ' << markdown_cell(cell) << " |";
    out << '\n';
    if (r == 0) {
      out << '|';
      for (std::size_t c = 0; c < rows[r].size(); ++c) out << "---|";
      out << '\n';
    }
  }
  out << '\n';
}

std::string html_escape(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped().toStdString();
}

void html_table(std::ostream& out, const TableRows& rows) {
  out << "<table>\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out << "<tr>";
    for (const auto& cell : rows[r]) {
      const char* tag = r == 0 ? "th" : "td";
      const char* mark = cell == "PASS"   ? " class=\"pass\""
                         : cell == "FAIL" ? " class=\"fail\""
                                          : "";
      out << '<' << tag << mark << '>' << html_escape(cell) << "</" << tag << '>';
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace hdstream
