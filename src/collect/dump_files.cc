#include "collect/dump_files.h"

#include <algorithm>
#include <map>
#include <system_error>


namespace optrace::collect {
namespace fs = std::filesystem;

std::optional<RankFile> ParseRankFileName(const fs::path& path) {
  std::string name = path.filename().string();
  DumpFormat format;
  size_t stem_len;
  if (name.size() > 4 && name.ends_with(".bin")) {
    format = DumpFormat::kNative;
    stem_len = name.size() - 4;
  } else if (name.size() > 3 && name.ends_with(".pt")) {
    format = DumpFormat::kLegacy;
    stem_len = name.size() - 3;
  } else {
    return std::nullopt;
  }
  if (stem_len <= 4 || name.compare(0, 4, "rank") != 0) return std::nullopt;
  std::string digits = name.substr(4, stem_len - 4);
  if (digits.empty() || digits.size() > 9) return std::nullopt;
  int rank = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    rank = rank * 10 + (c - '0');
  }
  return RankFile{path, rank, format};
}

namespace {

// What a directory holds, for the "no dumps here" message.
std::string DescribeDirectory(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  size_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    ++total;
    if (names.size() < 5) names.push_back(entry.path().filename().string() + (entry.is_directory() ? "/" : ""));
  }
  if (total == 0) return "it is empty";
  std::sort(names.begin(), names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  if (total > names.size()) list += fmt::format(", ... ({} entries)", total);
  return "it holds " + list;
}

}  // namespace

Result<std::vector<RankFile>> FindRankFiles(const std::vector<std::string>& inputs) {
  std::vector<RankFile> files;
  for (const std::string& input : inputs) {
    // Kept as given (relative paths resolve against the cwd when opened) so messages echo the user's words.
    fs::path path = input;
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      // A symlink loop or a dangling link named like a dump is that rank's problem, said when it is read.
      std::error_code lec;
      if (fs::is_symlink(fs::symlink_status(path, lec)) && ParseRankFileName(path)) {
        files.push_back(*ParseRankFileName(path));
        continue;
      }
      return NotFoundError("{}: no such file or directory; give the directory save_profiling_data wrote to", input);
    }
    if (fs::is_directory(st)) {
      size_t before = files.size();
      // Every entry named like a dump is taken, whatever it is (a directory, a dangling or looping
      // symlink): reading it names what is wrong, instead of a silent skip.
      fs::directory_iterator it(path, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        if (auto f = ParseRankFileName(it->path())) files.push_back(*f);
      }
      if (ec) return IoError("{}: cannot list the directory: {}", input, ec.message());
      if (files.size() == before) {
        return BadInputError(
            "{}: no dumps found (expected rank<N>.bin or rank<N>.pt); {}. Save them with "
            "optrace.save_profiling_data(buffer, rank, \"{}\") after synchronising the device",
            input, DescribeDirectory(path), input);
      }
      continue;
    }
    auto f = ParseRankFileName(path);
    if (!f) {
      return BadInputError("{}: cannot tell the rank from the file name; name dumps rank<N>.bin (native) or "
                           "rank<N>.pt (legacy)", input);
    }
    files.push_back(*f);
  }
  std::sort(files.begin(), files.end(), [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].rank == files[i - 1].rank) {
      std::error_code ec;
      if (fs::equivalent(files[i].path, files[i - 1].path, ec)) {
        return UsageError("{}: given twice", files[i].path.string());
      }
      return BadInputError("rank {} appears twice: {} and {}; keep one dump per rank", files[i].rank,
                           files[i - 1].path.string(), files[i].path.string());
    }
  }
  return files;
}

}  // namespace optrace::collect
