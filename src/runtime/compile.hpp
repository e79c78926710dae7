// On-disk compilation cache for generated code (shared objects and the runner executable).
// Cache key: 128-bit FNV-1a hash of (code, compiler command, flags, output kind). Entries are written atomically
// (compile to a unique temporary name in the cache directory, then rename). The compiler's version is not part
// of the key: clear the cache directory after changing the compiler behind the same command name.
#pragma once
#include <string>

#include "runtime/measure.hpp"

namespace steptp::runtime {

/// Limits of one compiler run (compile_cached): wall-clock seconds and address space (KiB). A run over either
/// fails as "compile error".
inline constexpr int kCompileTimeoutSeconds = 120;
inline constexpr long kCompileMemoryKiB = 4L * 1024 * 1024;
/// kCompileTimeoutSeconds, or $STEPTP_COMPILE_TIMEOUT when it holds a positive integer.
int compile_timeout_seconds();

/// Cache directory: `dir` if non-empty, else $STEPTP_CACHE, else $HOME/.cache/steptp/so. Created if missing.
std::string cache_dir(const std::string& dir);

/// 32 lowercase hex digits identifying `parts` (order-sensitive).
std::string content_hash(const std::vector<std::string>& parts);

/// Compiles `code` (written to <key><src_ext>) with `<compiler> <flags> -o <out> <src>` into the cache as
/// <key><out_ext>, unless present. `unkeyed_flags` are added to the command but not to the key: only flags that
/// cannot change what the output computes may go there (the linker's choice, fast_link_flags). The
/// compiler runs under compile_timeout_seconds() and kCompileMemoryKiB. Throws std::runtime_error("compile error:
/// <diagnostics>") on failure, a timeout or exhausted memory.
Compiled compile_cached(const std::string& code, const std::string& compiler, const std::string& flags,
                        const std::string& src_ext, const std::string& out_ext, const std::string& dir,
                        const std::string& unkeyed_flags = "");

/// Linker flags that do not change the code, for `compiler`'s kernel links: `-fuse-ld=gold` when the compiler is GCC
/// and GNU gold is installed (it links a kernel in half the time of GNU ld), else "". Passed unkeyed.
std::string fast_link_flags(const std::string& compiler);

/// The compiler command for C: opt.cxx, else $CXX, else "c++".
std::string cxx_command(const CompileOptions& opt);

/// Path of the sandbox runner executable (built from embedded source on first use, cached). Throws
/// std::runtime_error on a compile failure.
std::string runner_path(const CompileOptions& opt);

}  // namespace steptp::runtime
