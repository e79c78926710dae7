// Operator emitters of the built-in workload suite. Each function adds node tensor(s) to the graph and records
// the nests that compute them, in the Step-TP reference translator's form (the forms visible in
// leir-reference/corpus.jsonl): elementwise ops iterate the output shape; reductions accumulate with a self-update
// (`Y=Y+X`, `Y=max(Y,X)`) whose start value is implicit (LEIR.md §8.4); padding is an `if_then_else` nest into a
// temporary; softmax is max / sum-exp / divide nests. Shapes are NC… (channels at dimension 1). All functions
// throw std::invalid_argument on inconsistent shapes.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "frontend/workloads/graph.hpp"

namespace steptp::frontend::wl {

/// Builds an expression from operand reference texts.
using ExprFn = std::function<std::string(const std::vector<std::string>&)>;

// ---------------------------------------------------------------- elementwise (ops_elementwise.cpp)
Shape broadcast_shape(const std::vector<Shape>& shapes);
/// One node `Y = f(ins…)` over the broadcast shape of `ins` (or `out` when given).
T map(Graph& g, const std::vector<T>& ins, ExprFn f);
T map_shape(Graph& g, const Shape& out, const std::vector<T>& ins, ExprFn f);
/// Print-time form: `out = f(ins…)`, one nest over out.shape.
void emit_map(Graph& g, const Buf& out, const std::vector<Buf>& ins, const ExprFn& f);
/// Print-time tanh in the reference form: two temporaries (exp(x)-exp(-x), exp(x)+exp(-x)) then their quotient.
void emit_tanh(Graph& g, const Buf& out, const Buf& x);

// Expression builders for unary activations (argument: operand text).
std::string relu_e(const std::string& x);                                   // max(x,0)
std::string leaky_e(const std::string& x, double slope);                    // if_then_else(x<0,s*x,x)
std::string gelu_e(const std::string& x);                                   // x*0.5*(1+erf(x/sqrt(2)))
std::string sigmoid_e(const std::string& x);                                // 1/(1+exp(-x))
std::string softplus_e(const std::string& x);                               // log(1+exp(x))
std::string hardswish_e(const std::string& x);                              // x*max(min(x+3,6),0)/6
std::string hardsigmoid_e(const std::string& x);                            // max(min(x+3,6),0)/6
std::string hardtanh_e(const std::string& x, double lo, double hi);         // min(max(x,lo),hi)
std::string elu_e(const std::string& x, double alpha);
std::string selu_e(const std::string& x);
std::string softsign_e(const std::string& x);

T unary(Graph& g, T x, const std::function<std::string(const std::string&)>& f);
T tanh(Graph& g, T x);   // node + emit_tanh
T mish(Graph& g, T x);   // node; temps softplus, tanh (+2) ; x*tanh(softplus(x))
/// Binary with a literal or tensor: `x op y` (texts placed as given).
T binary(Graph& g, T a, T b, const std::string& op);
T binary_lit(Graph& g, T a, const std::string& op, const std::string& lit);   // a op lit
T lit_binary(Graph& g, const std::string& lit, const std::string& op, T b);   // lit op b

// ---------------------------------------------------------------- shape ops (ops_shape.cpp)
T transpose(Graph& g, T x, int d0, int d1);   // iterates the input; writes permuted subscripts
T view(Graph& g, T x, const Shape& out);      // split or merge of adjacent dimensions (c*16+d)
T unsqueeze(Graph& g, T x, int dim);
T squeeze(Graph& g, T x, int dim);
T expand(Graph& g, T x, const Shape& out);
T copy(Graph& g, T x);
T select(Graph& g, T x, int dim, std::int64_t i);
T zeros(Graph& g, const Shape& s);
T cat(Graph& g, const std::vector<T>& xs, int dim);   // one nest per piece, tx bound to `dim`
T slice(Graph& g, T x, int dim, std::int64_t start, std::int64_t end);
T diag(Graph& g, T v);                                // diag(v) as a matrix
T flip(Graph& g, T x, int dim);

// ---------------------------------------------------------------- matmul (ops_matmul.cpp)
/// torch.matmul of rank ≥ 2 operands with broadcast batch dimensions: `Y=Y+A*B` over out + K loop.
T matmul(Graph& g, T a, T b);
/// nn.Linear: x[…,K] · W[N,K]ᵀ, then the bias `Y=Y+b` in place (the node is the matmul output). bias.id<0: none.
T linear(Graph& g, T x, T w, T bias);

// ---------------------------------------------------------------- reductions (ops_reduce.cpp)
/// keepdim: temporary with 0 at reduced dims then a copy nest; else accumulate directly into the output.
T sum(Graph& g, T x, const std::vector<int>& dims, bool keepdim);
/// Temporary sum, then `Y = S / count` over the output shape (`B^{1}_{tx=0}` when 0-d).
T mean(Graph& g, T x, const std::vector<int>& dims, bool keepdim);
T prod(Graph& g, T x, int dim);
T amax(Graph& g, T x, int dim, bool keepdim, bool is_max);
/// argmax/argmin (i64): a temporary extremum plus `Y=0`, then `Y=if_then_else(X>=M,r,Y)` (<= for argmin).
T argext(Graph& g, T x, int dim, bool is_max);
/// log(sum(exp(x))) over `dim` (no max shift, as the reference does).
T logsumexp(Graph& g, T x, int dim, bool keepdim);

// ---------------------------------------------------------------- softmax (ops_softmax.cpp)
T softmax(Graph& g, T x, int dim);
T log_softmax(Graph& g, T x, int dim);
/// Print-time form (temporaries: max, sum); `dim` non-negative.
void emit_softmax(Graph& g, const Buf& out, const Buf& x, int dim, bool log);

// ---------------------------------------------------------------- normalisation (ops_norm.cpp)
/// Training-mode batch norm over all dims but 1: mean/var are node tensors (the reference's running_mean/var).
T batchnorm(Graph& g, T x, T w, T b, double eps);
T groupnorm(Graph& g, T x, std::int64_t groups, T w, T b, double eps);
T instancenorm(Graph& g, T x, T w, T b, double eps);   // w.id<0: no affine
/// LayerNorm over the trailing `nd` dims (w/b of that shape; id<0: none).
T layernorm(Graph& g, T x, int nd, T w, T b, double eps);
T rmsnorm(Graph& g, T x, double eps);                  // over dim 1, as KernelBench
T frobenius_norm(Graph& g, T x);                        // x / sqrt(sum(x²))
T lp_normalize(Graph& g, T x, int p);                   // x / ||x||_p over dim 1 (p = 1, 2)

// ---------------------------------------------------------------- convolution and pooling (ops_conv.cpp)
struct ConvCfg {
  std::vector<std::int64_t> stride, pad, dil;  // one per spatial dim
  std::int64_t groups = 1;
};
std::vector<std::int64_t> conv_out_dims(const Shape& x, const Shape& w, const ConvCfg& c);
/// Direct convolution; padding goes through a zero-padded temporary. bias.id<0: none.
T conv(Graph& g, T x, T w, const ConvCfg& c, T bias);
/// Transposed convolution (weight [Cin, Cout/groups, k…]) as a guarded gather. out_pad per dim.
T conv_transpose(Graph& g, T x, T w, const ConvCfg& c, const std::vector<std::int64_t>& out_pad, T bias);
struct PoolCfg {
  std::vector<std::int64_t> k, stride, pad, dil;
};
std::vector<std::int64_t> pool_out_dims(const Shape& x, const PoolCfg& c);
T maxpool(Graph& g, T x, const PoolCfg& c);
/// Average pool; without padding the divisor counts in-range taps, with padding it is the kernel size.
T avgpool(Graph& g, T x, const PoolCfg& c);

// ---------------------------------------------------------------- scans (ops_scan.cpp)
/// Inclusive scan along `dim` as a masked reduction: Y=Y+if_then_else(r<=i,X_r,0). reverse: r>=i.
T cumsum(Graph& g, T x, int dim, bool reverse);
T cumprod(Graph& g, T x, int dim);
T masked_cumsum(Graph& g, T x, T mask, int dim);

// ---------------------------------------------------------------- losses (ops_loss.cpp)
/// nn.CrossEntropyLoss (mean, ignore_index -100) on logits [N,C] and i64 targets [N].
T cross_entropy(Graph& g, T logits, T target);
/// F.kl_div(log_in, target, reduction='batchmean').
T kl_div_batchmean(Graph& g, T log_in, T target);

}  // namespace steptp::frontend::wl
