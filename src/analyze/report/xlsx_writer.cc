#include "analyze/report/xlsx_writer.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <system_error>

#include "analyze/report/xlsx_library.h"
#include "core/file_io.h"

namespace optrace::analyze::report {
namespace {

constexpr size_t kMaxCellChars = 32767;  // Excel's limit for one cell's text

lxw_error WriteCell(const XlsxLibrary& lxw, lxw_worksheet* ws, lxw_row_t row, lxw_col_t col, const Cell& cell,
                    lxw_format* fmt) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return lxw.worksheet_write_number(ws, row, col, double(*i), fmt);
  if (const auto* d = std::get_if<double>(&cell)) {
    // Excel has no NaN/Inf: write them as text so the cell is not silently empty.
    if (!std::isfinite(*d)) return lxw.worksheet_write_string(ws, row, col, FormatNumber(*d).c_str(), fmt);
    return lxw.worksheet_write_number(ws, row, col, *d, fmt);
  }
  if (const auto* s = std::get_if<std::string>(&cell)) {
    std::string text = s->size() > kMaxCellChars ? s->substr(0, kMaxCellChars) : *s;
    return lxw.worksheet_write_string(ws, row, col, text.c_str(), fmt);
  }
  return LXW_NO_ERROR;
}

}  // namespace

std::string XlsxSheetName(const std::string& table_name) {
  std::string name;
  for (char c : table_name) name += std::string_view("[]:*?/\\").find(c) == std::string_view::npos ? c : '_';
  if (name.empty()) name = "sheet";
  if (name.size() > 31) name.resize(31);
  return name;
}

Status WriteXlsx(const std::vector<const Table*>& tables, const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  // libxlsxwriter reports a bad directory only at close, on stderr: check it first ourselves.
  std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code dir_ec;
  if (!std::filesystem::is_directory(dir, dir_ec))
    return IoError("{}: cannot write the workbook: {} is not a directory", path.string(), dir.string());
  OPTRACE_ASSIGN_OR_RETURN(const XlsxLibrary* lxw, LoadXlsxLibrary());
  lxw_workbook_options options = {};
  options.constant_memory = LXW_TRUE;  // rows go to a temp file as written: memory stays flat
  lxw_workbook* wb = lxw->workbook_new_opt(tmp.string().c_str(), &options);
  if (wb == nullptr) return IoError("{}: cannot create the workbook; check the directory is writable", path.string());
  lxw_format* header = lxw->workbook_add_format(wb);
  lxw->format_set_bold(header);
  lxw->format_set_bg_color(header, 0xE8ECF2);

  std::set<std::string> used;
  lxw_error err = LXW_NO_ERROR;
  for (const Table* t : tables) {
    std::string sheet = XlsxSheetName(t->name);
    for (int n = 2; used.count(sheet); ++n) sheet = XlsxSheetName(t->name).substr(0, 28) + "_" + std::to_string(n);
    used.insert(sheet);
    lxw_worksheet* ws = lxw->workbook_add_worksheet(wb, sheet.c_str());
    if (ws == nullptr) {
      err = LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE;
      break;
    }
    for (size_t c = 0; c < t->columns.size() && !err; ++c) {
      err = lxw->worksheet_write_string(ws, 0, lxw_col_t(c), t->columns[c].c_str(), header);
      lxw->worksheet_set_column(ws, lxw_col_t(c), lxw_col_t(c), std::clamp<double>(t->columns[c].size() + 2, 9, 40),
                                nullptr);
    }
    size_t data_rows = std::min(t->rows.size(), kXlsxMaxRows - 2);  // header + truncation note
    for (size_t r = 0; r < data_rows && !err; ++r) {
      const auto& row = t->rows[r];
      for (size_t c = 0; c < row.size() && !err; ++c)
        err = WriteCell(*lxw, ws, lxw_row_t(r + 1), lxw_col_t(c), row[c], nullptr);
    }
    if (!err && data_rows < t->rows.size()) {
      std::string note =
          "truncated: " + std::to_string(t->rows.size() - data_rows) + " more rows in " + t->name + ".csv";
      err = lxw->worksheet_write_string(ws, lxw_row_t(data_rows + 1), 0, note.c_str(), header);
    }
    if (err) break;
    lxw->worksheet_freeze_panes(ws, 1, 0);
    if (!t->columns.empty())
      lxw->worksheet_autofilter(ws, 0, 0, lxw_row_t(data_rows), lxw_col_t(t->columns.size() - 1));
  }
  lxw_error close_err = lxw->workbook_close(wb);  // frees wb in every case
  if (!err) err = close_err;
  if (err) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    return IoError("{}: writing the workbook failed: {}", path.string(), lxw->lxw_strerror(err));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return IoError("{}: cannot rename {} into place: {}", path.string(), tmp.string(), ec.message());
  return Status::Ok();
}

}  // namespace optrace::analyze::report
