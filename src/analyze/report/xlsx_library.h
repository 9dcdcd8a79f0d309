// libxlsxwriter, loaded when a workbook is first written instead of at every start: linked, it and
// the libcrypto it pulls in cost each optrace process ~2 ms and ~2 MB before main (measured in
// bench/README.md), though only `analyze --format xlsx` / `report.xlsx` uses it.
//
//   OPTRACE_ASSIGN_OR_RETURN(const XlsxLibrary* lxw, LoadXlsxLibrary());
//   lxw_workbook* wb = lxw->workbook_new_opt(path, &options);
#pragma once

#include <xlsxwriter.h>

#include "core/status.h"

namespace optrace::analyze::report {

// The entry points the workbook writer calls, typed from the library's own header.
struct XlsxLibrary {
  decltype(&::workbook_new_opt) workbook_new_opt = nullptr;
  decltype(&::workbook_add_format) workbook_add_format = nullptr;
  decltype(&::workbook_add_worksheet) workbook_add_worksheet = nullptr;
  decltype(&::workbook_close) workbook_close = nullptr;
  decltype(&::format_set_bold) format_set_bold = nullptr;
  decltype(&::format_set_bg_color) format_set_bg_color = nullptr;
  decltype(&::worksheet_write_string) worksheet_write_string = nullptr;
  decltype(&::worksheet_write_number) worksheet_write_number = nullptr;
  decltype(&::worksheet_set_column) worksheet_set_column = nullptr;
  decltype(&::worksheet_freeze_panes) worksheet_freeze_panes = nullptr;
  decltype(&::worksheet_autofilter) worksheet_autofilter = nullptr;
  decltype(&::lxw_strerror) lxw_strerror = nullptr;
};

// The library the build linked against (its soname), loaded once per process; later calls return
// the same table. An error names the library and the package that provides it.
Result<const XlsxLibrary*> LoadXlsxLibrary();

// Loads `soname` (a file name the dynamic loader searches for, or a path) into a new table. The
// library stays loaded for the process. For tests of the error path; use LoadXlsxLibrary.
Result<XlsxLibrary> LoadXlsxLibraryFrom(const char* soname);

}  // namespace optrace::analyze::report
