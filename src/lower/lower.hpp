// Lowerings of a validated task (LEIR.md §10). Each is deterministic text.
#pragma once
#include <string>

#include "ir/task.hpp"

namespace steptp::lower {

/// TVMScript (TVM 0.21-style TensorIR) module for `t` (LEIR.md §10.1). `gpu` wraps B-less top-level nests in a
/// single-thread binding. Throws LeirError (validator errors, E401, E402).
std::string lower_tir(const ir::Task& t, bool gpu = true);

/// Self-contained C++ translation unit with `extern "C" void leir_run(...)` taking the known buffers in known
/// order (LEIR.md §10.2). Throws LeirError.
///
/// ABI: one pointer per known buffer, in known order: inputs, constants and params `const T* __restrict`,
/// outputs `T* __restrict`; dense row-major arrays of the known shape (0-d: one element). T per dtype: f32 float,
/// f64 double, iN/uN intN_t/uintN_t, bool bool, and f16/bf16 uint16_t holding IEEE binary16/bfloat16 bit
/// patterns (the layout of _Float16/__bf16). Also exported: `extern "C" void leir_run_packed(void* const* bufs)`
/// (same pointers in an array). Intermediates are allocated inside; on allocation failure the code prints
/// "leir: out of memory" and calls _Exit(99). Helpers: the embedded text of interp/numeric.hpp.
std::string lower_c(const ir::Task& t);

/// CUDA C source: one __global__ kernel per top-level nest and a host launcher `leir_run` (LEIR.md §10.3).
/// Throws LeirError (E401, E403). leir_run takes device pointers with the C ABI above; leir_run_packed takes host
/// pointers and copies inputs in and outputs out. Compile with nvcc --expt-relaxed-constexpr.
std::string lower_cuda(const ir::Task& t);

}  // namespace steptp::lower
