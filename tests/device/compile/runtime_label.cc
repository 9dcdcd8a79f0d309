// Compile-fail test: a label held in a pointer is not a string literal.
#include "optrace/trace.h"

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "processing";
  MoeTracing(TRACE_POINT(label, "B"));
  return 0;
}
