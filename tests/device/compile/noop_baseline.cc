// Object-code test, without tracing: the reference for noop_calls.cc.
#include <stdint.h>

extern "C" int TracedWork(int64_t* profiling, int x) {
  (void)profiling;
  for (int i = 0; i < 4; ++i) {
    x = x * 3 + i;
  }
  return x;
}
