// libFuzzer target: LEIR parser + validator (see fuzz_one.hpp). Run with `make fuzz` (clang, 60 s); crashing inputs
// go to fuzz/artifacts/ and, once fixed, into the regression corpus fuzz/corpus/.
#include "fuzz_one.hpp"

// libcln (pulled in through GiNaC) allocates 26 bytes in a static initialiser and never frees them; LeakSanitizer
// reports that at exit of every process that links it. Not a leak of ours.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcln.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  steptp::fuzz::fuzz_one(data, size);
  return 0;
}
