// The library baseline at the library's best kernel for this CPU (issue #49). OPENBLAS_CORETYPE and
// OPENBLAS_L2_SIZE make OpenBLAS run an older core (an AVX2 kernel on an AVX-512 CPU runs at about half speed), and
// OpenBLAS reads them once, when it is loaded. So the baseline runs in a child steptp (`steptp library-baseline`,
// a hidden command) started without them; the child's figures are used when the core OpenBLAS detects there passes
// a correctness check (an sgemm within kBlasCheckTolerance of the f64 product), and the figures of this process,
// with the variables kept, otherwise. Where OpenBLAS detects a core below the CPU's vector ISA (a guest that hides
// its CPU model, where OpenBLAS 0.3.21 falls back to Prescott's SSE3 kernels on an AVX-512 Xeon, 4x slower), the
// child runs with OPENBLAS_CORETYPE set to the CPU's best core instead, if that core passes the same check. Either
// way the report names the core, the build and what was dropped, kept or forced.
// The kernels steptp compiles do not use OpenBLAS and are unaffected.
#pragma once
#include <string>

#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::runtime {

/// Largest relative error (to the largest |element|) an sgemm may have against the f64 product.
inline constexpr double kBlasCheckTolerance = 1e-5;

/// The sgemm check in this process: the largest |difference| of a 192x160x224 cblas_sgemm of seeded inputs from the
/// f64 product, over the largest |element| of the product; -1 without CBLAS.
double blas_core_check();

/// The OpenBLAS core (DYNAMIC_ARCH, x86-64) with this CPU's widest vector kernels: "Cooperlake" (AVX-512 F/BW/VL/DQ
/// and BF16), "SkylakeX" (AVX-512 F/BW/VL/DQ), "Haswell" (AVX2 and FMA); "" for anything else or elsewhere.
std::string openblas_core_for_cpu();

/// The vector level of an OpenBLAS core name: 3 for the AVX-512 cores (SkylakeX, Cooperlake, SapphireRapids), 2 for
/// the AVX2 ones (Haswell, Zen), 1 for any other (SSE and AVX kernels, "Prescott" included).
int openblas_core_level(const std::string& core);

/// The steptp executable that runs `steptp library-baseline` (main sets it; empty in other programs, which then
/// time the baseline in-process).
void set_self_executable(const std::string& path);

/// The library the baseline figures come from: {"library": blas_library_info() of that process,
/// "core_check_max_rel_err", "dropped": {variable: value} (the variables the child ran without), "kept_reason": why
/// the variables were kept, or null; and, when the detected core is below openblas_core_for_cpu(): "forced":
/// {"OPENBLAS_CORETYPE": that core} (the child ran with it, its sgemm check passed) and "forced_reason", or
/// "forced_reason" alone when the forced core was not used}. Probed once per process; null without CBLAS.
core::ojson baseline_library();

/// time_library_baseline in the process baseline_library() chose.
core::ojson time_library_baseline_best(const std::string& workload, const ir::Task& t, int repeats, int threads);

}  // namespace steptp::runtime
