// Compile-fail test: an event type chosen at run time.
#include "optrace/trace.h"

int main(int argc, char** argv) {
  const char* type = argc > 1 ? "E" : "B";
  MoeTracing(TRACE_POINT("processing", type));
  return 0;
}
