#include "frontend/workloads/graph.hpp"

#include <stdexcept>

#include "ir/printer.hpp"

namespace steptp::frontend::wl {

namespace {
constexpr const char* kNameAlphabet = "ACDEFGHIJKMNOQRSWXYZ";   // 20 letters (LEIR.md §5.1)
constexpr const char* kVarAlphabet = "acdfghijklmnopqrsuw";     // 19 letters (LEIR.md §5)

std::string bijective(int index, const char* alphabet, int base) {
  std::string s;
  long i = index;
  while (true) {
    s.insert(s.begin(), alphabet[i % base]);
    i = i / base - 1;
    if (i < 0) break;
  }
  return s;
}
}  // namespace

std::string buffer_name(int index) {
  std::string s = bijective(index, kNameAlphabet, 20);
  for (std::size_t k = 1; k < s.size(); ++k) s[k] = static_cast<char>(s[k] - 'A' + 'a');
  return s;
}

std::string loop_var(int index) { return bijective(index, kVarAlphabet, 19); }

std::string flit(double v) { return ir::python_float_repr(v); }
std::string ilit(std::int64_t v) { return std::to_string(v); }

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string ref(const std::string& name, ir::DType dt, const std::vector<std::string>& subs) {
  std::string r = name + "^{" + std::string(ir::dtype_name(dt)) + ",g}";
  if (!subs.empty()) {
    r += "_{";
    for (std::size_t i = 0; i < subs.size(); ++i) r += (i ? "," : "") + subs[i];
    r += "}";
  }
  return r;
}
std::string ref(const Buf& b, const std::vector<std::string>& subs) { return ref(b.name, b.dt, subs); }

std::string Grid::add(std::int64_t ext) {
  std::string v = loop_var(next_var++);
  loops.push_back({'L', ext, v});
  return v;
}

Grid grid(const Shape& s, int tx_dim) {
  Grid g;
  if (s.empty()) {
    g.loops.push_back({'B', 1, "tx"});
    return g;
  }
  for (int d = 0; d < static_cast<int>(s.size()); ++d) {
    if (d == tx_dim) {
      g.loops.push_back({'B', s[d], "tx"});
      g.idx.push_back("tx");
    } else {
      g.idx.push_back(g.add(s[d]));
    }
  }
  return g;
}

std::vector<std::string> bcast_idx(const Shape& in, const Shape& out, const std::vector<std::string>& out_idx) {
  std::vector<std::string> r;
  std::size_t off = out.size() - in.size();
  for (std::size_t d = 0; d < in.size(); ++d) {
    bool broadcast = in[d] == 1 && out[off + d] != 1;
    r.push_back(broadcast ? "0" : out_idx[off + d]);
  }
  return r;
}

T Graph::add(Kind k, Shape s, ir::DType dt) {
  tensors_.push_back({k, std::move(s), dt, {}, ir::ValueRange::Any});
  return T{static_cast<int>(tensors_.size()) - 1};
}

void Graph::mark_output(T t) {
  auto& x = tensors_.at(t.id);
  if (x.kind != Kind::Intermediate) throw std::logic_error("mark_output: not a node tensor");
  x.kind = Kind::Output;
  // Outputs are named in marking order: move to the back of the creation order among outputs.
  out_order_.push_back(t.id);
}

Buf Graph::buf(T t) const {
  const auto& x = tensors_.at(t.id);
  return Buf{x.name, x.dt, x.shape};
}

Buf Graph::temp(Shape s) { return temp(std::move(s), dt_); }
Buf Graph::temp(Shape s, ir::DType dt) { return Buf{buffer_name(next_name_++), dt, std::move(s)}; }

void Graph::nest(const std::vector<Lp>& loops, const std::vector<std::string>& stmts) {
  for (const auto& l : loops) text_ += std::string(1, l.kind) + "^{" + ilit(l.ext) + "}_{" + l.var + "=0}";
  text_ += "[";
  for (const auto& s : stmts) text_ += s + ";";
  text_ += "];";
}

std::string Graph::finish(std::vector<ir::KnownBuffer>& known) {
  if (out_order_.empty()) throw std::logic_error("workload graph has no output");
  auto name_kind = [&](Kind k) {
    for (auto& x : tensors_)
      if (x.kind == k) x.name = buffer_name(next_name_++);
  };
  name_kind(Kind::Input);
  name_kind(Kind::Intermediate);
  for (int id : out_order_) tensors_[id].name = buffer_name(next_name_++);
  name_kind(Kind::Constant);
  name_kind(Kind::Param);
  text_.clear();
  for (auto& s : steps_) s(*this);
  known.clear();
  auto add_known = [&](Kind k, ir::Role r) {
    for (auto& x : tensors_)
      if (x.kind == k) known.push_back(ir::KnownBuffer{x.name, r, x.dt, x.shape, x.range});
  };
  add_known(Kind::Input, ir::Role::Input);
  add_known(Kind::Constant, ir::Role::Constant);
  add_known(Kind::Param, ir::Role::Param);
  for (int id : out_order_) known.push_back(ir::KnownBuffer{tensors_[id].name, ir::Role::Output, tensors_[id].dt,
                                                            tensors_[id].shape});
  return text_;
}

}  // namespace steptp::frontend::wl
