// libxlsxwriter, loaded when a workbook is first written instead of at every start: linked, it and
// the libcrypto it pulls in cost each optrace process ~2 ms and ~2 MB before main (measured in
// bench/collect.md), though only `analyze --mode full` (report.xlsx) uses it.
//
//   OPTRACE_ASSIGN_OR_RETURN(const XlsxLibrary* lxw, LoadXlsxLibrary());
//   lxw_workbook* wb = lxw->workbook_new_opt(path, &options);
#pragma once

#include <xlsxwriter.h>

#include "core/status.h"

namespace optrace::analyze::report {

// The entry points the workbook writer calls, each named once here: X(name) for every one.
// clang-format off
#define OPTRACE_XLSX_ENTRY_POINTS(X)                                                      \
  X(workbook_new_opt) X(workbook_add_format) X(workbook_add_worksheet) X(workbook_close) \
  X(format_set_bold) X(format_set_bg_color)                                             \
  X(worksheet_write_string) X(worksheet_write_number) X(worksheet_set_column)           \
  X(worksheet_freeze_panes) X(worksheet_autofilter) X(lxw_strerror)
// clang-format on

// The entry points, typed from the library's own header.
struct XlsxLibrary {
#define OPTRACE_XLSX_FIELD(fn) decltype(&::fn) fn = nullptr;
  OPTRACE_XLSX_ENTRY_POINTS(OPTRACE_XLSX_FIELD)
#undef OPTRACE_XLSX_FIELD
};

// The library the build linked against (its soname), loaded once per process; later calls return
// the same table. An error names the library and the package that provides it.
Result<const XlsxLibrary*> LoadXlsxLibrary();

// Loads `soname` (a file name the dynamic loader searches for, or a path) into a new table. The
// library stays loaded for the process. For tests of the error path; use LoadXlsxLibrary.
Result<XlsxLibrary> LoadXlsxLibraryFrom(const char* soname);

}  // namespace optrace::analyze::report
