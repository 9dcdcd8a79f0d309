// ReadTraceViewSteps: the ProfilerStep#N markers of a torch_npu trace_view.json, streamed.
//
// trace_view.json is the largest file of a capture (GBs for long runs) and only a few of its
// events matter here, so it is never held in memory: a small pull parser reads it through a
// fixed buffer, keeps the top-level fields of each trace event (name, ph, ts, dur) and skips
// everything else. Memory is the buffer, whatever the file size.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "analyze/normalize.h"
#include "core/csv_reader.h"

namespace optrace::analyze {
namespace {

constexpr size_t kBufferBytes = 1 << 20;

class JsonStream {
 public:
  JsonStream(int fd, std::string origin) : fd_(fd), origin_(std::move(origin)), buf_(new char[kBufferBytes]) {}
  ~JsonStream() { ::close(fd_); }
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;

  const Status& status() const { return status_; }
  bool failed() const { return !status_.ok(); }

  // Next byte, or -1 at the end of the input (or after an error).
  int Get() {
    if (pos_ == end_ && !Refill()) return -1;
    return static_cast<unsigned char>(buf_[pos_++]);
  }
  int Peek() {
    if (pos_ == end_ && !Refill()) return -1;
    return static_cast<unsigned char>(buf_[pos_]);
  }
  // Next byte that is not JSON whitespace.
  int GetNonSpace() {
    for (;;) {
      int c = Get();
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
    }
  }

  bool Fail(std::string_view what) {
    if (status_.ok()) {
      status_ = BadInputError("{}: malformed JSON at byte {}: {}; re-export the profiler output", origin_,
                              offset_ + pos_, what);
    }
    pos_ = end_ = 0;
    eof_ = true;
    return false;
  }

  // After the opening quote: reads the string up to its closing quote. `out` (may be null)
  // receives the text with \" \\ \/ unescaped and other escapes kept as written.
  bool ReadString(std::string* out) {
    if (out) out->clear();
    for (;;) {
      // Copy runs without quotes or backslashes in one go.
      if (pos_ == end_ && !Refill()) return Fail("a string is never closed");
      const char* start = buf_.get() + pos_;
      const char* stop = buf_.get() + end_;
      const char* p = start;
      while (p < stop && *p != '"' && *p != '\\') ++p;
      if (out) out->append(start, static_cast<size_t>(p - start));
      pos_ += static_cast<size_t>(p - start);
      if (p == stop) continue;
      ++pos_;
      if (*p == '"') return true;
      int e = Get();
      if (e < 0) return Fail("a string is never closed");
      if (out) {
        if (e == '"' || e == '\\' || e == '/') {
          out->push_back(static_cast<char>(e));
        } else {
          out->push_back('\\');
          out->push_back(static_cast<char>(e));
        }
      }
    }
  }

  // A number, true, false or null: the bytes up to the next delimiter.
  bool ReadScalar(std::string* out) {
    if (out) out->clear();
    for (;;) {
      int c = Peek();
      if (c < 0 || c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') break;
      if (c == '"' || c == '{' || c == '[' || c == ':') return Fail("unexpected character in a value");
      if (out) out->push_back(static_cast<char>(c));
      ++pos_;
    }
    return true;
  }

  // Skips one value whose first byte `c` was already read.
  bool SkipValue(int c) {
    if (c == '"') return ReadString(nullptr);
    if (c != '{' && c != '[') {
      if (c < 0) return Fail("the input ends where a value was expected");
      if (c == ',' || c == '}' || c == ']' || c == ':') return Fail("a value is missing");
      return ReadScalar(nullptr);
    }
    // Containers: count the nesting, strings may hold brackets.
    int depth = 1;
    while (depth > 0) {
      int d = Get();
      if (d < 0) return Fail("an object or array is never closed");
      if (d == '"') {
        if (!ReadString(nullptr)) return false;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        --depth;
      }
    }
    return true;
  }

 private:
  bool Refill() {
    if (eof_) return false;
    offset_ += end_;
    pos_ = end_ = 0;
    for (;;) {
      ssize_t n = ::read(fd_, buf_.get(), kBufferBytes);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status_ = IoError("{}: read failed at byte {}: {}", origin_, offset_, std::strerror(errno));
        eof_ = true;
        return false;
      }
      if (n == 0) {
        eof_ = true;
        return false;
      }
      end_ = static_cast<size_t>(n);
      return true;
    }
  }

  int fd_;
  std::string origin_;
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  uint64_t offset_ = 0;  // file offset of buf_[0]
  bool eof_ = false;
  Status status_;
};

struct EventFields {
  std::string name, ph, ts, dur;
  bool ts_is_string = false, has_ph = false;
};

// Reads one event object (its '{' already read), keeping its top-level name/ph/ts/dur.
bool ReadEvent(JsonStream& in, EventFields& ev, std::string& key) {
  ev.name.clear();
  ev.ph.clear();
  ev.ts.clear();
  ev.dur.clear();
  ev.ts_is_string = ev.has_ph = false;
  int c = in.GetNonSpace();
  if (c == '}') return true;
  for (;;) {
    if (c != '"') return in.Fail("expected a key in a trace event");
    if (!in.ReadString(&key)) return false;
    if (in.GetNonSpace() != ':') return in.Fail("expected ':' after a key");
    int v = in.GetNonSpace();
    std::string* target = nullptr;
    if (key == "name") {
      target = &ev.name;
    } else if (key == "ph") {
      target = &ev.ph;
      ev.has_ph = true;
    } else if (key == "ts") {
      target = &ev.ts;
      ev.ts_is_string = v == '"';
    } else if (key == "dur") {
      target = &ev.dur;
    }
    bool ok;
    if (target && v == '"') {
      ok = in.ReadString(target);
    } else if (target && v != '{' && v != '[' && v >= 0) {
      target->assign(1, static_cast<char>(v));
      std::string rest;
      ok = in.ReadScalar(&rest);
      *target += rest;
    } else {
      ok = in.SkipValue(v);
    }
    if (!ok) return false;
    c = in.GetNonSpace();
    if (c == '}') return true;
    if (c != ',') return in.Fail("expected ',' or '}' in a trace event");
    c = in.GetNonSpace();
  }
}

void AddMarker(const EventFields& ev, RankTable& table) {
  if (ev.name.rfind("ProfilerStep#", 0) != 0) return;
  if (ev.has_ph && ev.ph != "X") return;
  auto id = ParseCsvInt(std::string_view(ev.name).substr(13));
  if (!id) return;
  std::optional<int64_t> ts;
  if (ev.ts_is_string) {
    ts = ParseUsToNs(ev.ts);
  } else if (auto d = ParseCsvNumber(ev.ts)) {
    ts = static_cast<int64_t>(std::llround(*d * 1000.0));
  }
  if (!ts) return;
  double dur = ParseCsvNumber(ev.dur).value_or(0.0);
  table.step_markers.push_back({*id, *ts, *ts + static_cast<int64_t>(std::llround(dur * 1000.0)), "trace_view.json"});
}

// The array of trace events (its '[' already read).
bool ReadEventArray(JsonStream& in, RankTable& table) {
  EventFields ev;
  std::string key;
  int c = in.GetNonSpace();
  if (c == ']') return true;
  for (;;) {
    if (c == '{') {
      if (!ReadEvent(in, ev, key)) return false;
      AddMarker(ev, table);
    } else if (!in.SkipValue(c)) {
      return false;
    }
    c = in.GetNonSpace();
    if (c == ']') return true;
    if (c != ',') return in.Fail("expected ',' or ']' between trace events");
    c = in.GetNonSpace();
  }
}

}  // namespace

Status ReadTraceViewSteps(const std::filesystem::path& path, RankTable& table) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError("{}: cannot open: {}", path.string(), std::strerror(errno));
  JsonStream in(fd, path.string());
  int c = in.GetNonSpace();
  bool found = false;
  if (c == '[') {
    found = ReadEventArray(in, table);
  } else if (c == '{') {
    // {"traceEvents": [...], ...}: other top-level members are skipped.
    std::string key;
    c = in.GetNonSpace();
    while (c != '}' && !in.failed()) {
      if (c != '"' || !in.ReadString(&key)) {
        in.Fail("expected a key");
        break;
      }
      if (in.GetNonSpace() != ':') {
        in.Fail("expected ':' after a key");
        break;
      }
      int v = in.GetNonSpace();
      if (key == "traceEvents" && v == '[') {
        if (!ReadEventArray(in, table)) break;
        found = true;
      } else if (!in.SkipValue(v)) {
        break;
      }
      c = in.GetNonSpace();
      if (c == ',') c = in.GetNonSpace();
      else if (c != '}') in.Fail("expected ',' or '}' after a member");
    }
  } else if (c < 0 && in.status().ok()) {
    return BadInputError("{}: empty file; expected a JSON array of trace events", path.string());
  } else if (in.status().ok()) {
    in.Fail("expected '[' or '{' at the start");
  }
  if (!in.status().ok()) return in.status();
  if (!found) {
    return BadInputError("{}: expected a JSON array of trace events or an object with traceEvents", path.string());
  }
  if (in.GetNonSpace() >= 0) {
    in.Fail("text after the end of the JSON value");
    return in.status();
  }
  return Status::Ok();
}

}  // namespace optrace::analyze
