// Compiling lowered C code, running it sandboxed in a child process, and timing it (grounded latencies).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::runtime {

/// Linker flags for glibc's vector math library (libmvec, x86-64 glibc only): the C lowering's glue declares the
/// SIMD variants of logf/powf and of the f64 exp/log/erf/pow there (gcc's `simd` attribute; f32 exp and erf are
/// inline arithmetic), so the kernel must record libmvec as needed. Empty elsewhere, where the glue declares nothing.
#if defined(__x86_64__) && defined(__GLIBC__)
#define STEPTP_VECTOR_MATH_LINK " -Wl,--no-as-needed -lmvec"
#else
#define STEPTP_VECTOR_MATH_LINK ""
#endif

struct CompileOptions {
  std::string cxx;                 // "" = $CXX or "c++"
  // -ffp-contract=off: no fused multiply-add, so every operation rounds in its type as the interpreter does
  // (LEIR.md §8.2); GCC contracts a*b+c by default, which differs in the last f32 bit.
  // -fno-math-errno: libm calls need not set errno (LEIR has no errno), so sqrt becomes one instruction and loops
  // calling log/pow (and f64 exp/erf) can be vectorised with glibc's libmvec (declared in the C lowering's glue,
  // lower/c_emit.cpp; linked with STEPTP_VECTOR_MATH_LINK). No value changes: unlike -ffast-math nothing is
  // reassociated.
  // (One literal, joined by the preprocessor: a std::string concatenation here, inlined into every default
  // constructor, drew GCC 12's -Wstringop-overread false positive.)
  std::string flags =
      "-O3 -march=native -ffp-contract=off -fno-math-errno -fopenmp -shared -fPIC" STEPTP_VECTOR_MATH_LINK;
  std::string cache_dir;           // "" = $STEPTP_CACHE or ~/.cache/steptp/so
};

/// The kernel compile options, with fused multiply-add contraction when `fp_contract` (-ffp-contract=fast in place
/// of -ffp-contract=off): a*b+c rounds once, as the libraries' FMA kernels do. The result then differs from the
/// typed interpreter by at most one rounding per contracted operation, within the f32/f64 tolerance of LEIR.md §11
/// step 4 (integer code is unaffected); `search` and `replay` contract by default, the dataset never (DATASET.md
/// §2.6: class E compares before and after bit for bit).
CompileOptions kernel_compile_options(bool fp_contract);

/// A compiled shared object (cached on disk, keyed by a hash of code + compiler + flags).
struct Compiled {
  std::string so_path;
  double compile_seconds = 0;      // 0 on a cache hit
  bool cache_hit = false;
};
/// Throws std::runtime_error with the compiler's diagnostics on failure.
Compiled compile_c(const std::string& code, const CompileOptions& opt = {});

struct SandboxLimits {
  double timeout_seconds = 60;
  std::uint64_t memory_bytes = 4ull << 30;
};

/// Options of `measure` (one program): the calibrated timer of runtime/interleaved.hpp with these settings.
struct MeasureOptions {
  int repeats = 10;
  int warmup = 2;
  double min_repeat_ms = 1.0;      // calibrate `number` so one repeat lasts >= this (ms); 0 = one call per repeat
  int threads = 1;                 // OMP threads in the child
  bool flush_cache = false;        // write 2 x LLC bytes before every repeat (cold cache; number = 1)
  std::vector<int> cpus;           // pin the child here; empty = runtime::measure_cpus(threads)
  std::uint64_t seed = 0;
  SandboxLimits limits;
  CompileOptions compile;
};

/// Outcome of a sandboxed run. ok=false carries the reason ("timeout", "signal 11 (SIGSEGV)", "exit status 3",
/// "out of memory", "compile error: ...").
struct MeasureResult {
  bool ok = false;
  std::string error;
  double median = 0, iqr = 0, min = 0, q1 = 0, q3 = 0;   // seconds per call
  int repeats = 0;
  std::int64_t number = 0;         // calls per repeat (calibrated)
  bool redone = false;             // the first run was noisy (relative IQR > 0.05) and was redone with 2 x repeats
  double compile_seconds = 0;
  bool cache_hit = false;
  std::string to_json() const;
};

/// Lowers `t` to C, compiles (cached), runs it in a child process on seeded inputs and times it. Never throws
/// for generated-code failures (they are reported in the result); throws LeirError for an invalid task.
MeasureResult measure(const ir::Task& t, const MeasureOptions& opt = {});

/// A paired measurement of two programs with the same known signature, interleaved ABBA in one child.
struct CompareResult {
  bool ok = false;
  std::string error;
  MeasureResult before, after;
  double speedup = 0;              // median of the per-round ratios before / after
  double speedup_q1 = 0, speedup_q3 = 0;
  std::string to_json() const;
};

/// Times `before` and `after` interleaved (runtime/interleaved.hpp) on the seeded inputs of `before`. Throws
/// LeirError for an invalid task and std::invalid_argument when the known signatures differ.
CompareResult measure_pair(const ir::Task& before, const ir::Task& after, const MeasureOptions& opt = {});

/// Runs the compiled C lowering of `t` once in a sandboxed child on `inputs`, returning its outputs.
/// Throws std::runtime_error with the failure reason (crash, timeout, compile error).
interp::TensorMap run_compiled(const ir::Task& t, const interp::TensorMap& inputs, const SandboxLimits& lim = {},
                               const CompileOptions& copt = {});

}  // namespace steptp::runtime
