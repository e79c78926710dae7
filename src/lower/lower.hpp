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
std::string lower_c(const ir::Task& t);

/// CUDA C source: one __global__ kernel per top-level nest and a host launcher `leir_run` (LEIR.md §10.3).
/// Throws LeirError (E401, E403).
std::string lower_cuda(const ir::Task& t);

}  // namespace steptp::lower
