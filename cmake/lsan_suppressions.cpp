// LeakSanitizer suppressions compiled into every sanitizer-instrumented executable (steptp, steptp_tests,
// fuzz_parser) when STEPTP_SANITIZE or STEPTP_FUZZ is on; see CMakeLists.txt.
//
// libcln (pulled in through GiNaC) allocates 26 bytes in a static initialiser and never frees them, so LSan
// reports a leak at exit of every process that links it, including `steptp_tests --gtest_list_tests` that
// gtest_discover_tests runs at build time and every `steptp` child the CLI tests start. Compiling the suppression
// in (rather than LSAN_OPTIONS=suppressions=FILE) covers those processes whatever their environment. The pattern
// matches only allocations with a libcln frame in their stack; leaks in our code are still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcln.so\n"; }
// Do not print the "Suppressions used" table at exit: CLI tests compare the child's stderr.
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
