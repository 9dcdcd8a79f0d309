// TRACE_POINT("label", "B" | "E"): the compile-time point id of a trace mark (SPEC section 3),
//
//   MoeTracing(TRACE_POINT("dispatch send", "B"));
//
// The id is computed by constexpr functions and forced through a template argument, so it is
// a constant in every build mode. Misuse fails to compile with a message naming the rule:
// an event type other than "B" or "E", or a label / type that is not a string literal.
//
// Device-safe: constexpr only.
#ifndef OPTRACE_TRACE_POINT_H_
#define OPTRACE_TRACE_POINT_H_

#include "optrace/point_id.h"

namespace optrace {
namespace detail {

template <typename T>
struct AlwaysFalse {
  static constexpr bool value = false;
};

// Length of a string literal (without the terminating NUL).
template <uint32_t N>
OPTRACE_CONSTEXPR uint32_t LiteralLength(const char (&)[N]) {
  return N - 1;
}
template <typename T>
OPTRACE_CONSTEXPR uint32_t LiteralLength(const T&) {
  static_assert(AlwaysFalse<T>::value,
                "TRACE_POINT: the label and the event type must be string literals, "
                "e.g. TRACE_POINT(\"dispatch send\", \"B\")");
  return 0;
}

// 0 for "B", 1 for "E", -1 for anything else.
OPTRACE_CONSTEXPR int EventTypeCode(const char* type, uint32_t length) {
  return length != 1 ? -1 : type[0] == 'B' ? 0 : type[0] == 'E' ? 1 : -1;
}

template <int kTypeCode>
struct EventTypeIsEnd {
  static_assert(kTypeCode == 0 || kTypeCode == 1,
                "TRACE_POINT: the event type must be \"B\" (begin) or \"E\" (end)");
  static constexpr bool value = kTypeCode == 1;
};

// Carries the id as a template argument: a label that is not a constant expression fails here.
template <uint32_t kPointId>
struct PointIdConstant {
  static constexpr uint32_t value = kPointId;
};

}  // namespace detail
}  // namespace optrace

#define TRACE_POINT(label, type)                                                         \
  (::optrace::detail::PointIdConstant<::optrace::PointId(                                \
       ::optrace::LabelId(label, ::optrace::detail::LiteralLength(label)),               \
       ::optrace::detail::EventTypeIsEnd<::optrace::detail::EventTypeCode(               \
           type, ::optrace::detail::LiteralLength(type))>::value)>::value)

#endif  // OPTRACE_TRACE_POINT_H_
