// libFuzzer target: LEIR parser + validator (see fuzz_one.hpp). Run with `make fuzz` (clang, 60 s); crashing inputs
// go to fuzz/artifacts/ and, once fixed, into the regression corpus fuzz/corpus/.
#include "fuzz_one.hpp"

// LeakSanitizer suppression of libcln's static-init allocation: cmake/lsan_suppressions.cpp (linked in by CMake).

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  steptp::fuzz::fuzz_one(data, size);
  return 0;
}
