// Writing CSV cells: RFC 4180 quoting, and safe to open in a spreadsheet.
//
//   out += CsvCell(name);   // name from an export or a point map: quoted when needed, never a formula
//
// Names in our CSVs come from files others wrote (operator names of a profiler export, labels of a
// point map). A cell that starts with = + - @ TAB or CR is a formula to Excel, LibreOffice and
// Google Sheets ("CSV injection", OWASP): such a text cell gets a leading ' so it reads as text.
// A number (-1.5, +3e4) is left as it is.
#pragma once

#include <string>
#include <string_view>

namespace optrace {

std::string CsvCell(std::string_view text);

}  // namespace optrace
