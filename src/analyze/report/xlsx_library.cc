#include "analyze/report/xlsx_library.h"

#include <dlfcn.h>

namespace optrace::analyze::report {
namespace {

// dlsym into a typed pointer; false when the symbol is missing.
template <typename Fn>
bool Bind(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(::dlsym(handle, name));
  return out != nullptr;
}

}  // namespace

Result<XlsxLibrary> LoadXlsxLibraryFrom(const char* soname) {
#if defined(OPTRACE_STATIC_BINARY)
  // The static release binary: its glibc cannot load a shared library (docs/release.md).
  return IoError(
      "this optrace is the static release binary, which cannot load {} to write report.xlsx; report.html and "
      "the CSV files hold the same tables (use --mode fast), or build optrace from source for the workbook",
      soname);
#else
  // RTLD_LOCAL: its symbols (and libcrypto's) stay out of the global namespace.
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return IoError(
        "cannot load {} to write the workbook ({}); install libxlsxwriter (Debian: apt-get install "
        "libxlsxwriter4, which scripts/setup.sh does); the fast mode writes no workbook",
        soname, why ? why : "unknown reason");
  }
  XlsxLibrary lib;
  const char* missing = nullptr;
#define OPTRACE_BIND(fn) \
  if (!missing && !Bind(handle, #fn, lib.fn)) missing = #fn;
  OPTRACE_XLSX_ENTRY_POINTS(OPTRACE_BIND)
#undef OPTRACE_BIND
  if (missing) {
    ::dlclose(handle);
    return IoError(
        "{} has no {}: it is not the libxlsxwriter optrace was built against (soname {}); reinstall "
        "libxlsxwriter or rebuild optrace",
        soname, missing, OPTRACE_XLSXWRITER_SONAME);
  }
  return lib;
#endif
}

Result<const XlsxLibrary*> LoadXlsxLibrary() {
  // Loaded once; a failure is kept too, so every workbook of the run reports the same reason. By
  // soname first (the loader's search path, as a linked library would be found), then in the
  // folder the build found it in.
  static const Result<XlsxLibrary> loaded = [] {
    Result<XlsxLibrary> lib = LoadXlsxLibraryFrom(OPTRACE_XLSXWRITER_SONAME);
    if (!lib.ok()) {
      Result<XlsxLibrary> beside = LoadXlsxLibraryFrom(OPTRACE_XLSXWRITER_DIR "/" OPTRACE_XLSXWRITER_SONAME);
      if (beside.ok()) return beside;
    }
    return lib;
  }();
  if (!loaded.ok()) return loaded.status();
  return &loaded.value();
}

}  // namespace optrace::analyze::report
