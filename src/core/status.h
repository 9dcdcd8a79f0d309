// Status and Result<T>: errors as values with context.
//
//   Result<Dump> ReadDump(const std::string& path);
//   OPTRACE_ASSIGN_OR_RETURN(Dump dump, ReadDump(path));
//   if (bad) return DataError("{}: slot {} @ byte {}: ...; what to do", path, i, off);
//
// Libraries never print, throw or exit: they return a Status. Only the CLI turns a
// Status into a message and an exit code (kUsage and input errors -> 2).
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace optrace {

enum class StatusCode {
  kOk = 0,
  kUsage,      // bad command line
  kNotFound,   // a named file or directory does not exist
  kIo,         // the OS refused a read or write
  kBadInput,   // the input exists but is malformed, truncated, inconsistent
  kInternal,   // a bug in optrace
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Adds context in front of the message: "reading dumps/: " + message.
  Status WithContext(std::string_view context) const {
    if (ok()) return *this;
    return Status(code_, std::string(context) + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename... Args>
Status UsageError(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kUsage, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status NotFoundError(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kNotFound, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status IoError(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kIo, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status BadInputError(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kBadInput, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status InternalError(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kInternal, fmt::format(f, std::forward<Args>(args)...));
}

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: must not be ok

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace optrace

#define OPTRACE_CONCAT_INNER_(a, b) a##b
#define OPTRACE_CONCAT_(a, b) OPTRACE_CONCAT_INNER_(a, b)

#define OPTRACE_RETURN_IF_ERROR(expr)              \
  do {                                             \
    ::optrace::Status _optrace_st = (expr);        \
    if (!_optrace_st.ok()) return _optrace_st;     \
  } while (0)

#define OPTRACE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

#define OPTRACE_ASSIGN_OR_RETURN(lhs, expr) \
  OPTRACE_ASSIGN_OR_RETURN_IMPL_(OPTRACE_CONCAT_(_optrace_r_, __LINE__), lhs, expr)
