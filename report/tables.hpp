// Tables and text of the written reports (link reports, acceptance reports), in Markdown and
// HTML; rows[0] is the header.
//   markdown_table(out, {{"figure", "value"}, {"drops", "0"}});
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace hdstream {

using TableRows = std::vector<std::vector<std::string>>;

void markdown_table(std::ostream& out, const TableRows& rows);

std::string html_escape(const std::string& text);
// A cell reading exactly PASS or FAIL gets the class "pass" or "fail", for the page's style.
void html_table(std::ostream& out, const TableRows& rows);

}  // namespace hdstream
