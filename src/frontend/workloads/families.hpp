// Internal: helpers shared by the workload family files (frontend/workloads/*.cpp) and their registration
// functions, called in order by frontend/workloads.cpp.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "frontend/workloads.hpp"
#include "frontend/workloads/graph.hpp"
#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

/// Builds the graph for params `p` and marks its output(s).
using BuildFn = std::function<void(Graph& g, const Params& p)>;
using CheckFn = std::function<std::string(const Params&)>;

/// Dtype sets.
std::vector<ir::DType> dt_float();   // f32, f64, f16, bf16
std::vector<ir::DType> dt_wide();    // f32, f64

Workload make(std::string name, std::string suite, std::string family, std::vector<ParamSpec> params,
              std::vector<ir::DType> dtypes, BuildFn build, CheckFn check = {});

/// The (batch, dim) parameters of the row-wise families (elementwise, norm, softmax): 16 x 16384 by default.
inline std::vector<ParamSpec> batch_dim_params() {
  return {{"batch", 16, 1, 256, 4}, {"dim", 16384, 1, 65536, 64}};
}

/// (batch, dim) parameters with the given defaults, batch in [1, 4096] (multiple of 8) and dim in [1, 8192]
/// (multiple of 16): the losses and the model-form workloads.
inline std::vector<ParamSpec> bd(std::int64_t b, std::int64_t d) {
  return {{"batch", b, 1, 4096, 8}, {"dim", d, 1, 8192, 16}};
}

/// Convenience: p.at(name).
inline std::int64_t P(const Params& p, const char* n) { return p.at(n); }

void add_matmul(std::vector<Workload>& out);
void add_elementwise(std::vector<Workload>& out);
void add_reduction(std::vector<Workload>& out);
void add_norm(std::vector<Workload>& out);
void add_softmax(std::vector<Workload>& out);
void add_conv(std::vector<Workload>& out);
void add_pool(std::vector<Workload>& out);
void add_scan(std::vector<Workload>& out);
void add_loss(std::vector<Workload>& out);
void add_fused(std::vector<Workload>& out);
void add_attention(std::vector<Workload>& out);
/// Registered last (model_forms.cpp): operators written in the algebraic forms of PyTorch and model code.
void add_model_forms(std::vector<Workload>& out);

}  // namespace steptp::frontend::wl
