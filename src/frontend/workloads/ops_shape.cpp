#include <stdexcept>

#include "frontend/workloads/ops.hpp"

namespace steptp::frontend::wl {

namespace {
int norm_dim(int d, std::size_t rank) { return d < 0 ? d + static_cast<int>(rank) : d; }

// One node y of shape `out`; at print time iterate `iter` shape and write `lhs(idx) = rhs(idx)`.
using IdxFn = std::function<std::vector<std::string>(const std::vector<std::string>&)>;
T relayout(Graph& g, T x, const Shape& out, bool iterate_input, IdxFn x_idx, IdxFn y_idx, int tx_dim = 0) {
  T y = g.node(out);
  g.step([=](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Grid gr = grid(iterate_input ? xb.shape : yb.shape, tx_dim);
    gg.nest(gr.loops, {ref(yb, y_idx(gr.idx)) + "=" + ref(xb, x_idx(gr.idx))});
  });
  return y;
}
std::vector<std::string> same(const std::vector<std::string>& i) { return i; }

// "c*16+d" for the dims vars with sizes (strides from the trailing sizes).
std::string combine(const std::vector<std::string>& vars, const Shape& sizes) {
  std::string s;
  for (std::size_t k = 0; k < vars.size(); ++k) {
    std::int64_t stride = 1;
    for (std::size_t j = k + 1; j < sizes.size(); ++j) stride *= sizes[j];
    if (k) s += "+";
    s += vars[k];
    if (stride != 1) {
      s += '*';
      s += ilit(stride);
    }
  }
  return s;
}
}  // namespace

T transpose(Graph& g, T x, int d0, int d1) {
  Shape in = g.shape(x), out = in;
  d0 = norm_dim(d0, in.size());
  d1 = norm_dim(d1, in.size());
  std::swap(out[d0], out[d1]);
  return relayout(g, x, out, true, same, [d0, d1](const auto& i) {
    auto o = i;
    std::swap(o[d0], o[d1]);
    return o;
  });
}

T view(Graph& g, T x, const Shape& out) {
  Shape in = g.shape(x);
  if (numel(in) != numel(out)) throw std::invalid_argument("view: element count differs");
  // Group dimensions: each group is 1 in-dim : k out-dims (split) or k in-dims : 1 out-dim (merge).
  struct Grp { std::size_t i0, i1, o0, o1; };
  std::vector<Grp> groups;
  std::size_t i = 0, o = 0;
  while (i < in.size() || o < out.size()) {
    std::size_t i1 = i + 1, o1 = o + 1;
    std::int64_t pi = i < in.size() ? in[i] : 1, po = o < out.size() ? out[o] : 1;
    while (pi != po) {
      if (pi < po) pi *= in.at(i1++);
      else po *= out.at(o1++);
    }
    if (i1 - i > 1 && o1 - o > 1) throw std::invalid_argument("view: mixed split/merge group");
    groups.push_back({i, i1, o, o1});
    i = i1;
    o = o1;
  }
  bool split = out.size() >= in.size();
  for (const auto& gp : groups)
    if ((split && gp.i1 - gp.i0 > 1) || (!split && gp.o1 - gp.o0 > 1))
      throw std::invalid_argument("view: both splits and merges");
  // Iterate the finer shape; the coarser index is the combination.
  IdxFn coarse = [groups, in, out, split](const std::vector<std::string>& idx) {
    std::vector<std::string> r;
    for (const auto& gp : groups) {
      std::size_t f0 = split ? gp.o0 : gp.i0, f1 = split ? gp.o1 : gp.i1;
      const Shape& fs = split ? out : in;
      r.push_back(combine({idx.begin() + f0, idx.begin() + f1}, Shape(fs.begin() + f0, fs.begin() + f1)));
    }
    return r;
  };
  return split ? relayout(g, x, out, false, coarse, same) : relayout(g, x, out, true, same, coarse);
}

T unsqueeze(Graph& g, T x, int dim) {
  Shape in = g.shape(x), out = in;
  dim = dim < 0 ? dim + static_cast<int>(in.size()) + 1 : dim;
  out.insert(out.begin() + dim, 1);
  return relayout(g, x, out, true, same, [dim](const auto& i) {
    auto o = i;
    o.insert(o.begin() + dim, "0");
    return o;
  });
}

T squeeze(Graph& g, T x, int dim) {
  Shape in = g.shape(x), out = in;
  dim = norm_dim(dim, in.size());
  out.erase(out.begin() + dim);
  return relayout(g, x, out, false, [dim](const auto& i) {
    auto o = i;
    o.insert(o.begin() + dim, "0");
    return o;
  }, same);
}

T expand(Graph& g, T x, const Shape& out) {
  Shape in = g.shape(x);
  return relayout(g, x, out, false, [in, out](const auto& i) { return bcast_idx(in, out, i); }, same);
}

T copy(Graph& g, T x) { return relayout(g, x, g.shape(x), true, same, same); }

T select(Graph& g, T x, int dim, std::int64_t k) {
  Shape in = g.shape(x), out = in;
  dim = norm_dim(dim, in.size());
  out.erase(out.begin() + dim);
  return relayout(g, x, out, false, [dim, k](const auto& i) {
    auto o = i;
    o.insert(o.begin() + dim, ilit(k));
    return o;
  }, same);
}

T zeros(Graph& g, const Shape& s) {
  T y = g.node(s);
  g.step([y](Graph& gg) {
    Buf yb = gg.buf(y);
    Grid gr = grid(yb.shape);
    gg.nest(gr.loops, {ref(yb, gr.idx) + "=0"});
  });
  return y;
}

T cat(Graph& g, const std::vector<T>& xs, int dim) {
  Shape out = g.shape(xs.at(0));
  dim = norm_dim(dim, out.size());
  out[dim] = 0;
  for (T t : xs) out[dim] += g.shape(t)[dim];
  T y = g.node(out);
  g.step([xs, y, dim](Graph& gg) {
    Buf yb = gg.buf(y);
    std::int64_t off = 0;
    for (T t : xs) {
      Buf xb = gg.buf(t);
      Grid gr = grid(xb.shape, dim);
      auto oi = gr.idx;
      if (off > 0) {
        oi[dim] += '+';
        oi[dim] += ilit(off);
      }
      gg.nest(gr.loops, {ref(yb, oi) + "=" + ref(xb, gr.idx)});
      off += xb.shape[dim];
    }
  });
  return y;
}

T slice(Graph& g, T x, int dim, std::int64_t start, std::int64_t end) {
  Shape in = g.shape(x), out = in;
  dim = norm_dim(dim, in.size());
  out[dim] = end - start;
  return relayout(g, x, out, false, [dim, start](const auto& i) {
    auto o = i;
    if (start > 0) {
      o[dim] += '+';
      o[dim] += ilit(start);
    }
    return o;
  }, same);
}

T flip(Graph& g, T x, int dim) {
  Shape in = g.shape(x);
  dim = norm_dim(dim, in.size());
  std::int64_t n = in[dim];
  return relayout(g, x, in, false, [dim, n](const auto& i) {
    auto o = i;
    o[dim] = ilit(n - 1) + "-" + o[dim];
    return o;
  }, same);
}

T diag(Graph& g, T v) {
  std::int64_t n = g.shape(v).at(0);
  T y = g.node({n, n});
  g.step([v, y](Graph& gg) {
    Buf yb = gg.buf(y), vb = gg.buf(v);
    Grid gr = grid(yb.shape);
    gg.nest(gr.loops, {ref(yb, gr.idx) + "=if_then_else(" + gr.idx[1] + "==tx," + ref(vb, {gr.idx[1]}) + ",0)"});
  });
  return y;
}

}  // namespace steptp::frontend::wl
