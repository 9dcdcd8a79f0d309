// Compile-fail test: an event type other than "B" or "E".
#include "optrace/trace.h"

int main() {
  MoeTracing(TRACE_POINT("processing", "X"));
  return 0;
}
