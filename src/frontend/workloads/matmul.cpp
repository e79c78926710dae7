// Matmul family: KernelBench level-1 matrix products and level-2 matmul pairs.
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
ParamSpec ps(const char* n, std::int64_t def, std::int64_t lo, std::int64_t hi, std::int64_t small) {
  return ParamSpec{n, def, lo, hi, small};
}
// A[m,k] @ C[k,n] with `pre` applied to the operands and `post` to the product.
void mm2(Graph& g, const Params& p, bool ta, bool tb) {
  T a = g.input(ta ? Shape{P(p, "k"), P(p, "m")} : Shape{P(p, "m"), P(p, "k")});
  T b = g.input(tb ? Shape{P(p, "n"), P(p, "k")} : Shape{P(p, "k"), P(p, "n")});
  if (ta) a = transpose(g, a, 0, 1);
  if (tb) b = transpose(g, b, 0, 1);
  g.mark_output(matmul(g, a, b));
}
Workload mm(const char* name, std::int64_t m, std::int64_t n, std::int64_t k, bool ta = false, bool tb = false) {
  return make(name, "level1", "matmul",
              {ps("m", m, 1, 4 * m, 8), ps("n", n, 1, 4 * n, 8), ps("k", k, 1, 4 * k, 8)}, dt_float(),
              [ta, tb](Graph& g, const Params& p) { mm2(g, p, ta, tb); });
}
}  // namespace

void add_matmul(std::vector<Workload>& v) {
  v.push_back(make("Matmul3D", "level1", "matmul",
                   {ps("b", 16, 1, 64, 2), ps("i", 1024, 1, 2048, 8), ps("j", 768, 1, 2048, 8),
                    ps("k", 512, 1, 2048, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "i"), P(p, "k")});
                     T c = g.input({P(p, "k"), P(p, "j")});
                     g.mark_output(matmul(g, a, c));
                   }));
  v.push_back(make("Matmul4D", "level1", "matmul",
                   {ps("b", 16, 1, 64, 2), ps("i", 256, 1, 1024, 2), ps("j", 512, 1, 1024, 4),
                    ps("l", 256, 1, 1024, 8), ps("k", 128, 1, 1024, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "i"), P(p, "j"), P(p, "l")});
                     T c = g.input({P(p, "l"), P(p, "k")});
                     g.mark_output(matmul(g, a, c));
                   }));
  v.push_back(make("Matmul_with_diagonal_mat", "level1", "matmul", {ps("n", 512, 1, 4096, 8), ps("m", 1024, 1, 4096, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "n")});
                     T c = g.input({P(p, "n"), P(p, "m")});
                     g.mark_output(matmul(g, diag(g, a), c));
                   }));
  v.push_back(make("Matmul_for_symmetric_matrices", "level1", "matmul", {ps("n", 512, 1, 2048, 8)}, dt_float(),
                   [](Graph& g, const Params& p) {
                     std::int64_t n = P(p, "n");
                     T a = g.input({n, n}), c = g.input({n, n});
                     T at = transpose(g, a, 0, 1);
                     T sa = binary_lit(g, binary(g, a, at, "+"), "/", "2");
                     T ct = transpose(g, c, 0, 1);
                     T sc = binary_lit(g, binary(g, c, ct, "+"), "/", "2");
                     g.mark_output(matmul(g, sa, sc));
                   }));
  for (bool upper : {true, false}) {
    v.push_back(make(upper ? "Matmul_for_upper_triangular_matrices" : "Matmul_for_lower_triangular_matrices",
                     "level1", "matmul", {ps("n", 512, 1, 2048, 8)}, dt_float(), [upper](Graph& g, const Params& p) {
                       std::int64_t n = P(p, "n");
                       T a = g.input({n, n}), c = g.input({n, n});
                       T d = matmul(g, a, c);
                       g.mark_output(map(g, {d}, [upper](const auto& r) {
                         return "if_then_else(a" + std::string(upper ? ">=" : "<=") + "tx," + r[0] + ",0)";
                       }));
                     }));
  }
  v.push_back(mm("Matmul_with_transposed_A", 1024, 768, 512, true, false));
  v.push_back(mm("Matmul_with_transposed_B", 1024, 768, 512, false, true));
  v.push_back(mm("Matmul_with_transposed_both", 1024, 768, 512, true, true));
  v.push_back(make("Square_matrix_multiplication", "level1", "matmul", {ps("n", 512, 1, 2048, 8)}, dt_float(),
                   [](Graph& g, const Params& p) {
                     std::int64_t n = P(p, "n");
                     T a = g.input({n, n}), c = g.input({n, n});
                     g.mark_output(matmul(g, a, c));
                   }));
  v.push_back(mm("Standard_matrix_multiplication", 512, 768, 1024));
  v.push_back(make("Batched_matrix_multiplication", "level1", "matmul",
                   {ps("b", 128, 1, 512, 2), ps("m", 128, 1, 1024, 8), ps("n", 512, 1, 1024, 8),
                    ps("k", 256, 1, 1024, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "m"), P(p, "k")});
                     T c = g.input({P(p, "b"), P(p, "k"), P(p, "n")});
                     g.mark_output(matmul(g, a, c));
                   }));
  v.push_back(make("Matrix_vector_multiplication", "level1", "matmul",
                   {ps("m", 256, 1, 4096, 8), ps("k", 131072, 1, 262144, 64)}, dt_float(),
                   [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "m"), P(p, "k")});
                     T c = g.input({P(p, "k"), 1});
                     g.mark_output(matmul(g, a, c));
                   }));
  v.push_back(make("Matrix_scalar_multiplication", "level1", "matmul",
                   {ps("m", 1024, 1, 16384, 8), ps("n", 1024, 1, 16384, 8)}, dt_float(),
                   [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "m"), P(p, "n")});
                     T s = g.input({});
                     g.mark_output(binary(g, a, s, "*"));
                   }));
  v.push_back(mm("Matmul_with_irregular_shapes", 1017, 642, 987));
  v.push_back(mm("Matmul_with_large_K_dimension", 256, 256, 131072));
  v.push_back(mm("Matmul_with_small_K_dimension", 1024, 1024, 32));
  v.push_back(mm("Tall_skinny_matrix_multiplication", 4096, 64, 64));

  // ---- level 2 matmul pairs
  v.push_back(make("add_add", "level2", "matmul",
                   {ps("b", 512, 1, 1024, 2), ps("m", 128, 1, 1024, 4), ps("k", 256, 1, 1024, 8),
                    ps("n", 768, 1, 2048, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "m"), P(p, "k")});
                     T c = g.input({P(p, "b"), P(p, "k"), P(p, "n")});
                     T d = g.input({P(p, "k")}), e = g.input({P(p, "n")});
                     T f = binary(g, a, d, "+");
                     T h = binary(g, c, e, "+");
                     g.mark_output(matmul(g, f, h));
                   }));
  v.push_back(make("Bmm_Bmm", "level2", "matmul",
                   {ps("b", 128, 1, 512, 2), ps("m", 64, 1, 1024, 4), ps("k", 256, 1, 1024, 8),
                    ps("n", 512, 1, 1024, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "m"), P(p, "k")});
                     T c = g.input({P(p, "b"), P(p, "k"), P(p, "n")});
                     T d = g.input({P(p, "b"), P(p, "m"), P(p, "k")});
                     T e = matmul(g, a, c);
                     T f = matmul(g, d, c);
                     g.mark_output(binary(g, e, f, "+"));
                   }));
  for (const char* f : {"exp", "log", "abs", "sqrt"}) {
    v.push_back(make(std::string(f) + "_" + f, "level2", "matmul",
                     {ps("b", 128, 1, 512, 2), ps("m", 128, 1, 1024, 4), ps("k", 256, 1, 1024, 8),
                      ps("n", 512, 1, 1024, 8)},
                     dt_float(), [f](Graph& g, const Params& p) {
                       std::string fn = f;
                       auto uf = [fn](const std::string& x) { return fn + "(" + x + ")"; };
                       T a = g.input({P(p, "b"), P(p, "m"), P(p, "k")});
                       T c = g.input({P(p, "b"), P(p, "k"), P(p, "n")});
                       T d = unary(g, a, uf);
                       T e = unary(g, c, uf);
                       g.mark_output(matmul(g, d, e));
                     }));
  }
  v.push_back(make("log_log_add", "level2", "matmul",
                   {ps("b", 128, 1, 512, 2), ps("m", 128, 1, 1024, 8), ps("n", 256, 1, 1024, 8)}, dt_float(),
                   [](Graph& g, const Params& p) {
                     auto lg = [](const std::string& x) { return "log(" + x + ")"; };
                     T a = g.input({P(p, "b"), P(p, "m"), P(p, "n")});
                     T c = g.input({P(p, "b"), P(p, "m"), P(p, "n")});
                     T d = unary(g, a, lg);
                     T e = unary(g, c, lg);
                     g.mark_output(binary(g, d, e, "+"));
                   }));
  v.push_back(make("MatMul3D_MatMul3D", "level2", "matmul",
                   {ps("b", 16, 1, 64, 2), ps("i", 256, 1, 1024, 4), ps("k", 256, 1, 1024, 8),
                    ps("j", 256, 1, 1024, 8), ps("l", 128, 1, 1024, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "i"), P(p, "k")});
                     T c = g.input({P(p, "k"), P(p, "j")});
                     T d = g.input({P(p, "j"), P(p, "l")});
                     g.mark_output(matmul(g, matmul(g, a, c), d));
                   }));
  v.push_back(make("MatMul4D_MatMul4D", "level2", "matmul",
                   {ps("b", 8, 1, 64, 2), ps("i", 64, 1, 512, 2), ps("j", 128, 1, 512, 4),
                    ps("k", 128, 1, 512, 8), ps("l", 128, 1, 512, 8), ps("m", 64, 1, 512, 4)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T a = g.input({P(p, "b"), P(p, "i"), P(p, "j"), P(p, "k")});
                     T c = g.input({P(p, "k"), P(p, "l")});
                     T d = g.input({P(p, "l"), P(p, "m")});
                     g.mark_output(matmul(g, matmul(g, a, c), d));
                   }));
  v.push_back(make("Gemm_Gemm", "level2", "matmul",
                   {ps("batch", 128, 1, 1024, 4), ps("in", 512, 1, 4096, 8), ps("hidden", 1024, 1, 4096, 8),
                    ps("out", 512, 1, 4096, 8)},
                   dt_float(), [](Graph& g, const Params& p) {
                     T x = g.input({P(p, "batch"), P(p, "in")});
                     T w1 = g.param({P(p, "hidden"), P(p, "in")}), b1 = g.param({P(p, "hidden")});
                     T w2 = g.param({P(p, "out"), P(p, "hidden")}), b2 = g.param({P(p, "out")});
                     g.mark_output(linear(g, linear(g, x, w1, b1), w2, b2));
                   }));
}

}  // namespace steptp::frontend::wl
