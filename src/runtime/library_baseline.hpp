// The library baseline of `steptp search` reports (DATASET.md §9.4): a registry that maps workloads which are wholly
// one BLAS routine to that routine, and a timer for it. Built with STEPTP_WITH_CBLAS (OpenBLAS, Debian
// libopenblas-dev; on by default when CMake finds it); without it no workload has a baseline.
//
// Registry (KernelBench level-1 names; shapes read from the task's known buffers, inputs in known order):
//   gemm  C[M,N] = op(A)·op(B): Square_matrix_multiplication, Standard_matrix_multiplication,
//         Matmul_with_irregular_shapes, Matmul_with_large_K_dimension, Matmul_with_small_K_dimension,
//         Tall_skinny_matrix_multiplication (A[M,K], B[K,N]); Matmul_with_transposed_A (A[K,M]),
//         Matmul_with_transposed_B (B[N,K]), Matmul_with_transposed_both (A[K,M], B[N,K]);
//   batched gemm  C[b,M,N] = A[b,M,K]·B[b,K,N]: Batched_matrix_multiplication (one ?gemm per batch entry);
//   gemv  y[M,1] = A[M,K]·x[K,1]: Matrix_vector_multiplication.
// f32 calls cblas_sgemm / cblas_sgemv, f64 the d variants; other dtypes, or shapes that do not fit the pattern,
// have no baseline. The mapping is checked numerically against the reference interpreter in
// tests/runtime/test_library_baseline.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/json_text.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::runtime {

/// One library call that computes a whole task.
struct LibraryCall {
  enum class Kind { Gemm, BatchedGemm, Gemv } kind = Kind::Gemm;
  bool trans_a = false, trans_b = false;
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  ir::DType dtype = ir::DType::F32;
  std::string a, b, c;            // known buffer names: the two inputs and the output
  std::string routine() const;    // "cblas_sgemm", "cblas_dgemv", ...
};

/// The environment variables that force an OpenBLAS core (OpenBLAS reads them once, when it is loaded).
inline constexpr const char* kBlasForcingVars[] = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"};

/// True when this build can call CBLAS.
bool cblas_available();

/// The call computing `t` (of workload `workload`), or nullopt when the workload is not in the registry, the
/// dtype is not f32/f64 or the known shapes do not fit.
std::optional<LibraryCall> library_call(const std::string& workload, const ir::Task& t);

/// Runs the call on interpreter tensors (inputs by known name) and returns the output tensor. Throws
/// std::runtime_error without CBLAS.
interp::Tensor run_library_call(const LibraryCall& call, const interp::TensorMap& inputs);

/// Times the call on `threads` BLAS threads: one warm-up call, then `repeats` repeats of `number` calls each, with
/// `number` chosen so that a repeat takes at least 2 ms. Returns {routine, median_ns, q1_ns, q3_ns, iqr_ns,
/// repeats, number, threads} (per-call nanoseconds over the repeats), or null when the task has no library call
/// or the build has no CBLAS. Never throws.
core::ojson time_library_baseline(const std::string& workload, const ir::Task& t, int repeats, int threads);

/// The BLAS library the baseline runs on in this process: {"openblas_core": openblas_get_corename() (e.g.
/// "Haswell"), "openblas_config": openblas_get_config(), "OPENBLAS_CORETYPE" and "OPENBLAS_L2_SIZE": the environment
/// variables that force a core (null when unset)}; null without CBLAS. Reported beside every baseline figure, since
/// a forced older core (OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU) runs at about half speed.
core::ojson blas_library_info();

}  // namespace steptp::runtime
