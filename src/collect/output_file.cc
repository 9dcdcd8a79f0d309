#include "collect/output_file.h"

#include <unistd.h>

#include <fstream>
#include <system_error>

#include "core/file_io.h"

namespace optrace::collect {
namespace fs = std::filesystem;

Status WriteStreamAtomic(const fs::path& path, const std::function<Status(std::ostream&)>& write) {
  const fs::path target = ResolveAgainstCwd(path);
  if (target.has_parent_path()) OPTRACE_RETURN_IF_ERROR(EnsureDirectory(target.parent_path()));
  fs::path tmp = target;
  tmp += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  Status st;
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    if (!os) return IoError("{}: cannot create the file; check the directory is writable", tmp.string());
    st = write(os);
    os.flush();
    if (st.ok() && !os) st = IoError("{}: write failed (disk full?)", tmp.string());
  }
  std::error_code ec;
  if (!st.ok()) {
    fs::remove(tmp, ec);
    return st.WithContext(path.string());
  }
  if (fs::exists(target, ec)) fs::permissions(tmp, fs::status(target, ec).permissions(), ec);
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return IoError("{}: cannot replace the file: {}", target.string(), ec.message());
  }
  return Status::Ok();
}

}  // namespace optrace::collect
