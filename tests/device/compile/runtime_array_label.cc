// Compile-fail test: a label in a character array filled at run time is not a constant.
#include "optrace/trace.h"

int main(int argc, char** argv) {
  char label[4] = {'a', 'b', 'c', 0};
  label[0] = argv[0][0];
  MoeTracing(TRACE_POINT(label, "B"));
  return argc;
}
