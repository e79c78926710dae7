// LeakSanitizer default suppressions for steptp_tests: libcln's static-initialiser allocation (see
// src/cli/lsan_suppressions.cpp, which does the same for the steptp executable).
extern "C" const char* __lsan_default_suppressions() { return "leak:libcln.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
