#include <algorithm>
#include <stdexcept>

#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

namespace {
std::vector<int> norm_dims(std::vector<int> dims, std::size_t rank) {
  for (auto& d : dims) d = d < 0 ? d + static_cast<int>(rank) : d;
  return dims;
}
bool has(const std::vector<int>& v, int d) { return std::find(v.begin(), v.end(), d) != v.end(); }

Shape reduced_shape(const Shape& in, const std::vector<int>& dims, bool keepdim) {
  Shape out;
  for (int d = 0; d < static_cast<int>(in.size()); ++d) {
    if (!has(dims, d)) out.push_back(in[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}
// Subscripts of the reduced buffer given the input iteration subscripts.
std::vector<std::string> reduced_idx(const std::vector<std::string>& idx, const std::vector<int>& dims, bool keep) {
  std::vector<std::string> r;
  for (int d = 0; d < static_cast<int>(idx.size()); ++d) {
    if (!has(dims, d)) r.push_back(idx[d]);
    else if (keep) r.push_back("0");
  }
  return r;
}
std::int64_t count(const Shape& in, const std::vector<int>& dims) {
  std::int64_t n = 1;
  for (int d : dims) n *= in[d];
  return n;
}
}  // namespace

T sum(Graph& g, T x, const std::vector<int>& dims0, bool keepdim) {
  Shape in = g.shape(x);
  auto dims = norm_dims(dims0, in.size());
  T y = g.node(reduced_shape(in, dims, keepdim));
  g.step([x, y, dims, keepdim](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf acc = keepdim ? gg.temp(yb.shape) : yb;
    Grid gr = grid(xb.shape);
    std::string ar = ref(acc, reduced_idx(gr.idx, dims, keepdim));
    gg.nest(gr.loops, {ar + "=" + ar + "+" + ref(xb, gr.idx)});
    if (keepdim) {
      Grid g2 = grid(yb.shape);
      gg.nest(g2.loops, {ref(yb, g2.idx) + "=" + ref(acc, g2.idx)});
    }
  });
  return y;
}

T mean(Graph& g, T x, const std::vector<int>& dims0, bool keepdim) {
  Shape in = g.shape(x);
  auto dims = norm_dims(dims0, in.size());
  T y = g.node(reduced_shape(in, dims, keepdim));
  std::int64_t n = count(in, dims);
  g.step([x, y, dims, keepdim, n](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf acc = gg.temp(yb.shape);
    Grid gr = grid(xb.shape);
    std::string ar = ref(acc, reduced_idx(gr.idx, dims, keepdim));
    gg.nest(gr.loops, {ar + "=" + ar + "+" + ref(xb, gr.idx)});
    Grid g2 = grid(yb.shape);
    gg.nest(g2.loops, {ref(yb, g2.idx) + "=" + ref(acc, g2.idx) + "/" + ilit(n)});
  });
  return y;
}

T prod(Graph& g, T x, int dim) {
  Shape in = g.shape(x);
  auto dims = norm_dims({dim}, in.size());
  T y = g.node(reduced_shape(in, dims, false));
  g.step([x, y, dims](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Grid gr = grid(xb.shape);
    std::string yr = ref(yb, reduced_idx(gr.idx, dims, false));
    gg.nest(gr.loops, {yr + "=" + yr + "*" + ref(xb, gr.idx)});
  });
  return y;
}

T amax(Graph& g, T x, int dim, bool keepdim, bool is_max) {
  Shape in = g.shape(x);
  auto dims = norm_dims({dim}, in.size());
  T y = g.node(reduced_shape(in, dims, keepdim));
  g.step([x, y, dims, keepdim, is_max](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Grid gr = grid(xb.shape);
    std::string yr = ref(yb, reduced_idx(gr.idx, dims, keepdim));
    gg.nest(gr.loops, {yr + "=" + (is_max ? "max(" : "min(") + yr + "," + ref(xb, gr.idx) + ")"});
  });
  return y;
}

T argext(Graph& g, T x, int dim, bool is_max) {
  Shape in = g.shape(x);
  auto dims = norm_dims({dim}, in.size());
  T y = g.node(reduced_shape(in, dims, false), ir::DType::I64);
  g.step([x, y, dims, is_max](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf m = gg.temp(yb.shape);
    Grid gr = grid(xb.shape);
    auto ri = reduced_idx(gr.idx, dims, false);
    std::string mr = ref(m, ri), yr = ref(yb, ri), xr = ref(xb, gr.idx);
    gg.nest(gr.loops, {mr + "=" + (is_max ? "max(" : "min(") + mr + "," + xr + ")", yr + "=0"});
    gg.nest(gr.loops,
            {yr + "=if_then_else(" + xr + (is_max ? ">=" : "<=") + mr + "," + gr.idx[dims[0]] + "," + yr + ")"});
  });
  return y;
}

T logsumexp(Graph& g, T x, int dim, bool keepdim) {
  Shape in = g.shape(x);
  auto dims = norm_dims({dim}, in.size());
  T y = g.node(reduced_shape(in, dims, keepdim));
  g.step([x, y, dims, keepdim](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf acc = gg.temp(yb.shape);
    Grid gr = grid(xb.shape);
    std::string ar = ref(acc, reduced_idx(gr.idx, dims, keepdim));
    gg.nest(gr.loops, {ar + "=" + ar + "+exp(" + ref(xb, gr.idx) + ")"});
    // Second nest: over the output shape; a 0-d result keeps the input's first loop (reference form).
    Grid g2 = yb.shape.empty() ? Grid{{{'B', xb.shape.at(0), "tx"}}, {}, 0} : grid(yb.shape);
    gg.nest(g2.loops, {ref(yb, g2.idx) + "=log(" + ref(acc, g2.idx) + ")"});
  });
  return y;
}

}  // namespace steptp::frontend::wl
