#include "runtime/library_baseline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <vector>

#ifdef STEPTP_WITH_CBLAS
#include <cblas.h>
#endif

namespace steptp::runtime {

std::string LibraryCall::routine() const {
  const char* p = dtype == ir::DType::F64 ? "d" : "s";
  return std::string("cblas_") + p + (kind == Kind::Gemv ? "gemv" : "gemm");
}

bool cblas_available() {
#ifdef STEPTP_WITH_CBLAS
  return true;
#else
  return false;
#endif
}

std::optional<LibraryCall> library_call(const std::string& workload, const ir::Task& t) {
  static const std::set<std::string> plain{"Square_matrix_multiplication", "Standard_matrix_multiplication",
                                           "Matmul_with_irregular_shapes", "Matmul_with_large_K_dimension",
                                           "Matmul_with_small_K_dimension", "Tall_skinny_matrix_multiplication",
                                           "Matmul_with_transposed_A", "Matmul_with_transposed_B",
                                           "Matmul_with_transposed_both"};
  if (t.known.size() != 3) return std::nullopt;
  const auto &A = t.known[0], &B = t.known[1], &C = t.known[2];
  if (A.dtype != B.dtype || A.dtype != C.dtype || (A.dtype != ir::DType::F32 && A.dtype != ir::DType::F64))
    return std::nullopt;
  LibraryCall call;
  call.dtype = A.dtype;
  call.a = A.name;
  call.b = B.name;
  call.c = C.name;
  if (plain.count(workload)) {
    if (A.shape.size() != 2 || B.shape.size() != 2 || C.shape.size() != 2) return std::nullopt;
    call.trans_a = workload == "Matmul_with_transposed_A" || workload == "Matmul_with_transposed_both";
    call.trans_b = workload == "Matmul_with_transposed_B" || workload == "Matmul_with_transposed_both";
    call.m = C.shape[0];
    call.n = C.shape[1];
    call.k = call.trans_a ? A.shape[0] : A.shape[1];
    const std::int64_t am = call.trans_a ? A.shape[1] : A.shape[0];
    const std::int64_t bk = call.trans_b ? B.shape[1] : B.shape[0], bn = call.trans_b ? B.shape[0] : B.shape[1];
    if (am != call.m || bk != call.k || bn != call.n) return std::nullopt;
    return call;
  }
  if (workload == "Batched_matrix_multiplication") {
    if (A.shape.size() != 3 || B.shape.size() != 3 || C.shape.size() != 3) return std::nullopt;
    call.kind = LibraryCall::Kind::BatchedGemm;
    call.batch = C.shape[0];
    call.m = C.shape[1];
    call.n = C.shape[2];
    call.k = A.shape[2];
    if (A.shape[0] != call.batch || B.shape[0] != call.batch || A.shape[1] != call.m || B.shape[1] != call.k ||
        B.shape[2] != call.n)
      return std::nullopt;
    return call;
  }
  if (workload == "Matrix_vector_multiplication") {
    if (A.shape.size() != 2 || B.shape.size() != 2 || C.shape.size() != 2 || B.shape[1] != 1 || C.shape[1] != 1)
      return std::nullopt;
    call.kind = LibraryCall::Kind::Gemv;
    call.m = A.shape[0];
    call.k = A.shape[1];
    call.n = 1;
    if (B.shape[0] != call.k || C.shape[0] != call.m) return std::nullopt;
    return call;
  }
  return std::nullopt;
}

namespace {

#ifdef STEPTP_WITH_CBLAS
/// One execution of the call on raw buffers of element type T.
template <class T>
void execute(const LibraryCall& c, const T* a, const T* b, T* out) {
  const auto ta = c.trans_a ? CblasTrans : CblasNoTrans, tb = c.trans_b ? CblasTrans : CblasNoTrans;
  const int m = int(c.m), n = int(c.n), k = int(c.k);
  const int lda = c.trans_a ? m : k, ldb = c.trans_b ? k : n;
  for (std::int64_t i = 0; i < (c.kind == LibraryCall::Kind::BatchedGemm ? c.batch : 1); ++i) {
    const T* ai = a + i * c.m * c.k;
    const T* bi = b + i * c.k * c.n;
    T* oi = out + i * c.m * c.n;
    if constexpr (std::is_same_v<T, float>) {
      if (c.kind == LibraryCall::Kind::Gemv) cblas_sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, ai, k, bi, 1, 0.0f, oi, 1);
      else cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, ai, lda, bi, ldb, 0.0f, oi, n);
    } else {
      if (c.kind == LibraryCall::Kind::Gemv) cblas_dgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0, ai, k, bi, 1, 0.0, oi, 1);
      else cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, ai, lda, bi, ldb, 0.0, oi, n);
    }
  }
}

template <class T>
interp::Tensor run_typed(const LibraryCall& c, const interp::TensorMap& in) {
  auto conv = [&](const std::string& name) {
    const auto it = in.find(name);
    if (it == in.end()) throw std::runtime_error("library call: missing input " + name);
    return std::vector<T>(it->second.data.begin(), it->second.data.end());
  };
  const std::vector<T> a = conv(c.a), b = conv(c.b);
  std::vector<T> out(std::size_t(c.batch * c.m * c.n));
  execute<T>(c, a.data(), b.data(), out.data());
  interp::Tensor t;
  t.dtype = c.dtype;
  t.shape = c.kind == LibraryCall::Kind::BatchedGemm ? std::vector<std::int64_t>{c.batch, c.m, c.n}
                                                     : std::vector<std::int64_t>{c.m, c.n};
  t.data.assign(out.begin(), out.end());
  return t;
}

template <class T>
core::ojson time_typed(const LibraryCall& c, int repeats, int threads) {
  openblas_set_num_threads(std::max(1, threads));
  std::vector<T> a(std::size_t(c.batch * c.m * c.k)), b(std::size_t(c.batch * c.k * c.n)), out(std::size_t(c.batch * c.m * c.n));
  std::uint64_t x = 0x9E3779B97F4A7C15ull;  // splitmix-style fill in [-1, 1): no denormals, no zeros pattern
  for (auto* v : {&a, &b})
    for (auto& e : *v) {
      x += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      e = T(double(z >> 11) / 9007199254740992.0 * 2 - 1);
    }
  using clock = std::chrono::steady_clock;
  execute<T>(c, a.data(), b.data(), out.data());  // warm-up (and page-in)
  const auto t0 = clock::now();
  execute<T>(c, a.data(), b.data(), out.data());
  const double one = std::max(1e-9, std::chrono::duration<double>(clock::now() - t0).count());
  const int number = std::max(1, int(2e-3 / one));
  std::vector<double> per_call;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    const auto s = clock::now();
    for (int i = 0; i < number; ++i) execute<T>(c, a.data(), b.data(), out.data());
    per_call.push_back(std::chrono::duration<double>(clock::now() - s).count() / number);
  }
  std::sort(per_call.begin(), per_call.end());
  auto q = [&](double f) {  // linear interpolation between order statistics
    const double pos = f * double(per_call.size() - 1);
    const std::size_t lo = std::size_t(pos);
    const std::size_t hi = std::min(lo + 1, per_call.size() - 1);
    return (per_call[lo] + (pos - double(lo)) * (per_call[hi] - per_call[lo])) * 1e9;
  };
  return {{"routine", c.routine()}, {"median_ns", q(0.5)}, {"q1_ns", q(0.25)}, {"q3_ns", q(0.75)},
          {"iqr_ns", q(0.75) - q(0.25)}, {"repeats", per_call.size()}, {"number", number}, {"threads", std::max(1, threads)}};
}
#endif

}  // namespace

interp::Tensor run_library_call(const LibraryCall& call, const interp::TensorMap& inputs) {
#ifdef STEPTP_WITH_CBLAS
  return call.dtype == ir::DType::F64 ? run_typed<double>(call, inputs) : run_typed<float>(call, inputs);
#else
  (void)call;
  (void)inputs;
  throw std::runtime_error("this steptp was built without CBLAS (STEPTP_WITH_CBLAS)");
#endif
}

core::ojson blas_library_info() {
#ifdef STEPTP_WITH_CBLAS
  core::ojson info = {{"openblas_core", openblas_get_corename()}, {"openblas_config", openblas_get_config()}};
  for (const char* name : kBlasForcingVars) {
    const char* v = std::getenv(name);
    info[name] = v ? core::ojson(v) : core::ojson(nullptr);
  }
  return info;
#else
  return nullptr;
#endif
}

core::ojson time_library_baseline(const std::string& workload, const ir::Task& t, int repeats, int threads) {
#ifdef STEPTP_WITH_CBLAS
  const auto call = library_call(workload, t);
  if (!call) return nullptr;
  try {
    return call->dtype == ir::DType::F64 ? time_typed<double>(*call, repeats, threads)
                                         : time_typed<float>(*call, repeats, threads);
  } catch (const std::exception& e) {
    return {{"routine", call->routine()}, {"error", e.what()}};
  }
#else
  (void)workload;
  (void)t;
  (void)repeats;
  (void)threads;
  return nullptr;
#endif
}

}  // namespace steptp::runtime
