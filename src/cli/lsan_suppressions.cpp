// LeakSanitizer default suppressions for the steptp executable (used only in sanitizer builds; harmless otherwise).
// libcln (pulled in through GiNaC) allocates 26 bytes in a static initialiser and never frees them; LSan would
// report that at exit of every process and turn exit codes and test discovery into failures.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcln.so\n"; }
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }
