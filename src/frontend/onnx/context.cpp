#include "frontend/onnx/context.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/import_error.hpp"
#include "frontend/onnx/onnx_tensor.hpp"
#include "base/diag.hpp"

namespace steptp::frontend::onnx_detail {

std::int64_t numel_of(const Shape& s) {
  // Saturates at 2^62 so that corrupt shapes cannot overflow; callers reject anything >= 2^31.
  std::int64_t n = 1;
  for (auto d : s) {
    if (d <= 0) return d == 0 ? 0 : -1;
    if (__builtin_mul_overflow(n, d, &n) || n > (std::int64_t{1} << 62)) return std::int64_t{1} << 62;
  }
  return n;
}
std::int64_t Value::numel() const { return numel_of(t.shape); }

// ---------------------------------------------------------------- Node

const std::string& Node::op() const { return p_.op_type(); }
std::string Node::label() const { return fmt::format("{} node '{}'", p_.op_type(), p_.name()); }
std::size_t Node::n_in() const { return static_cast<std::size_t>(p_.input_size()); }
std::size_t Node::n_out() const { return static_cast<std::size_t>(p_.output_size()); }
bool Node::has_in(std::size_t i) const { return i < n_in() && !p_.input(static_cast<int>(i)).empty(); }
const std::string& Node::in_name(std::size_t i) const {
  if (!has_in(i)) fail(fmt::format("missing input {}", i));
  return p_.input(static_cast<int>(i));
}
const std::string& Node::out_name(std::size_t i) const {
  if (i >= n_out()) fail(fmt::format("missing output {}", i));
  return p_.output(static_cast<int>(i));
}
void Node::fail(const std::string& msg) const { throw ir::LeirError(kImportNode, fmt::format("{}: {}", label(), msg)); }
const onnx::AttributeProto* Node::find(const std::string& name) const {
  for (const auto& a : p_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
bool Node::has_attr(const std::string& name) const { return find(name) != nullptr; }
std::int64_t Node::attr_i(const std::string& name, std::int64_t def) const {
  auto a = find(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INT) fail(fmt::format("attribute '{}' is not an int", name));
  return a->i();
}
double Node::attr_f(const std::string& name, double def) const {
  auto a = find(name);
  if (!a) return def;
  if (a->type() == onnx::AttributeProto::INT) return static_cast<double>(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT) fail(fmt::format("attribute '{}' is not a float", name));
  return ex::shortest_f32(a->f());  // ONNX float attributes are f32: print 1e-05, not 9.99999974e-06
}
std::string Node::attr_s(const std::string& name, const std::string& def) const {
  auto a = find(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::STRING) fail(fmt::format("attribute '{}' is not a string", name));
  return a->s();
}
Shape Node::attr_ints(const std::string& name, const Shape& def) const {
  auto a = find(name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INTS) fail(fmt::format("attribute '{}' is not a list of ints", name));
  return Shape(a->ints().begin(), a->ints().end());
}
const onnx::TensorProto* Node::attr_t(const std::string& name) const {
  auto a = find(name);
  if (!a) return nullptr;
  if (a->type() != onnx::AttributeProto::TENSOR) fail(fmt::format("attribute '{}' is not a tensor", name));
  return &a->t();
}

// ---------------------------------------------------------------- shape helpers

Shape broadcast_shapes(const Node& n, const Shape& a, const Shape& b) {
  std::size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (std::size_t k = 0; k < r; ++k) {
    std::int64_t da = k + a.size() >= r ? a[k + a.size() - r] : 1;
    std::int64_t db = k + b.size() >= r ? b[k + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1)
      n.fail(fmt::format("shapes [{}] and [{}] do not broadcast", fmt::join(a, ","), fmt::join(b, ",")));
    out[k] = da == 1 ? db : da;
  }
  return out;
}

std::int64_t norm_axis(const Node& n, std::int64_t axis, std::int64_t rank) {
  // Every caller indexes a dimension with the result, so a rank-0 input has no valid axis (the fuzz_onnx target
  // found CumSum on a scalar reading shape()[0] of an empty shape).
  if (axis < -rank || axis >= rank)
    n.fail(rank == 0 ? fmt::format("axis {} of a rank-0 input (the operator needs rank 1 or more)", axis)
                     : fmt::format("axis {} out of range for rank {}", axis, rank));
  return axis < 0 ? axis + rank : axis;
}

std::int64_t bcast_flat(const Shape& out, const Shape& in, std::int64_t i) {
  std::int64_t res = 0, stride = 1;
  const std::size_t off = out.size() - in.size();
  for (std::size_t k = out.size(); k-- > 0;) {
    std::int64_t c = i % out[k];
    i /= out[k];
    if (k >= off) {
      std::int64_t d = in[k - off];
      if (d != 1) res += c * stride;
      stride *= d;
    }
  }
  return res;
}

// ---------------------------------------------------------------- names

namespace {
constexpr std::string_view kBufAlpha = "ACDEFGHIJKMNOQRSWXYZ";  // LEIR.md §5.1
constexpr std::string_view kVarAlpha = "acdfghijklmnopqrsuw";   // LEIR.md §5.1

std::string bijective(std::size_t k, std::string_view alpha) {
  std::string s;
  std::size_t n = k + 1;
  while (n > 0) {
    --n;
    s.insert(s.begin(), alpha[n % alpha.size()]);
    n /= alpha.size();
  }
  return s;
}

bool reserved_var(const std::string& v) {
  static const std::set<std::string> kw = {
      "exp", "log", "sqrt", "abs", "erf", "max", "min", "if_then_else", "inf", "and", "as", "assert", "async",
      "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
      "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
      "while", "with", "yield"};
  return kw.count(v) != 0;
}

std::string var_name(std::size_t k) {
  // k-th non-reserved name of the bijective base-19 sequence
  std::size_t seen = 0;
  for (std::size_t i = 0;; ++i) {
    std::string v = bijective(i, kVarAlpha);
    if (reserved_var(v)) continue;
    if (seen++ == k) return v;
  }
}
}  // namespace

Context::Context() = default;

std::string Context::fresh_buffer() {
  for (;;) {
    std::string s = bijective(next_name_++, kBufAlpha);
    for (std::size_t i = 1; i < s.size(); ++i) s[i] = static_cast<char>(s[i] - 'A' + 'a');
    if (s == "None" || s == "False" || used_names_.count(s)) continue;
    used_names_.insert(s);
    return s;
  }
}

std::string Context::temp() { return fresh_buffer(); }

// ---------------------------------------------------------------- values

const Value& Context::value(const std::string& onnx_name) const {
  auto it = values_.find(onnx_name);
  if (it == values_.end()) throw std::runtime_error(fmt::format("value '{}' is used before it is defined", onnx_name));
  return it->second;
}
const Value& Context::in(const Node& n, std::size_t i) const {
  if (!n.has_in(i)) n.fail(fmt::format("missing input {}", i));
  return value(n.in_name(i));
}
const Value* Context::opt_in(const Node& n, std::size_t i) const { return n.has_in(i) ? &value(n.in_name(i)) : nullptr; }

Shape Context::const_ints(const Node& n, std::size_t i) const {
  const Value& v = in(n, i);
  if (!v.is_const) n.fail(fmt::format("input {} must be a constant (computed at import time)", i));
  Shape out;
  for (double d : v.t.data) {
    if (std::isnan(d)) n.fail(fmt::format("input {} holds NaN", i));
    // INT64_MIN/MAX sentinels (Slice ends) arrive as +-2^63 after the trip through double: clamp.
    if (d >= 9.2233720368547758e18) out.push_back(INT64_MAX);
    else if (d <= -9.2233720368547758e18) out.push_back(INT64_MIN);
    else out.push_back(static_cast<std::int64_t>(d));
  }
  return out;
}
double Context::const_scalar(const Node& n, std::size_t i) const {
  const Value& v = in(n, i);
  if (!v.is_const || v.numel() != 1) n.fail(fmt::format("input {} must be a one-element constant", i));
  return v.t.data[0];
}

void Context::set_const(const std::string& name, interp::Tensor t, bool from_init) {
  if (numel_of(t.shape) >= (std::int64_t{1} << 28) || numel_of(t.shape) != static_cast<std::int64_t>(t.data.size()))
    throw std::runtime_error(fmt::format("constant '{}' has an invalid or too large shape", name));
  Value v;
  v.is_const = true;
  v.from_init = from_init;
  v.const_buffer = std::make_shared<std::string>();
  for (auto& d : t.data) d = convert_to_dtype(d, t.dtype);
  v.t = std::move(t);
  values_[name] = std::move(v);
}

void Context::set_input(const std::string& onnx_name, ir::DType dt, const Shape& shape) {
  for (auto d : shape)
    if (d < 1 || d >= (std::int64_t{1} << 31))
      throw ir::LeirError(kImportGraph,
                          fmt::format("graph input '{}': dimension {} is not in [1, 2^31)", onnx_name, d));
  Value v;
  v.t.dtype = dt;
  v.t.shape = shape;
  v.buffer = fresh_buffer();
  buf_dtype_[v.buffer] = dt;
  inputs_.push_back({v.buffer, ir::Role::Input, dt, shape});
  values_[onnx_name] = std::move(v);
}

void Context::declare_output(const std::string& onnx_name, ir::DType, const Shape&, bool) {
  std::string b = fresh_buffer();
  output_names_[onnx_name].push_back(b);
  output_written_[b] = false;
  // dtype/shape are fixed when the value is defined (def_out / finish); the declared ones are checked there.
  outputs_.push_back({b, ir::Role::Output, ir::DType::F32, {}});
}

std::string Context::def_out(const Node& n, std::size_t i, ir::DType dt, const Shape& shape) {
  const std::string& name = n.out_name(i);
  for (auto d : shape)
    if (d < 1 || d >= (std::int64_t{1} << 31))
      n.fail(fmt::format("output shape [{}] has an extent outside [1, 2^31)", fmt::join(shape, ",")));
  if (!ir::is_supported(dt)) n.fail("unsupported element type");
  Value v;
  v.t.dtype = dt;
  v.t.shape = shape;
  auto it = output_names_.find(name);
  if (it != output_names_.end()) {
    v.buffer = it->second.front();
    for (auto& k : outputs_)
      if (k.name == v.buffer) { k.dtype = dt; k.shape = shape; }
    output_written_[v.buffer] = true;
  } else {
    v.buffer = fresh_buffer();
  }
  buf_dtype_[v.buffer] = dt;
  values_[name] = v;
  return v.buffer;
}

void Context::set_alias(const Node& n, const std::string& name, const Value& v) {
  if (output_names_.count(name)) {
    Value src = v;  // copy: def_out may rehash values_
    std::string dst = def_out(n, 0, src.dtype(), src.shape());
    emit_copy(dst, src.dtype(), src.shape(), src);
    return;
  }
  values_[name] = v;
}

ir::DType Context::buffer_dtype(const std::string& buf) const {
  auto it = buf_dtype_.find(buf);
  return it == buf_dtype_.end() ? ir::DType::F32 : it->second;
}

// ---------------------------------------------------------------- reads

ir::Expr Context::ref(const std::string& buf, ir::DType dt, std::vector<ir::Expr> idx) {
  return ir::make_ref(buf, dt, ir::Scope::Global, std::move(idx));
}

std::string Context::materialise(const Value& v) {
  if (!v.buffer.empty()) return v.buffer;
  if (!v.const_buffer->empty()) return *v.const_buffer;
  std::string b = fresh_buffer();
  ir::KnownBuffer k{b, v.from_init ? ir::Role::Param : ir::Role::Constant, v.dtype(), v.shape()};
  (v.from_init ? params_known_ : consts_).push_back(k);
  params_[b] = v.t;
  buf_dtype_[b] = v.dtype();
  *v.const_buffer = b;
  return b;
}

ir::Expr Context::read(const Value& v, std::vector<ir::Expr> idx) {
  if (v.is_const) {
    const auto& d = v.t.data;
    if (!v.from_init && !d.empty() && std::all_of(d.begin(), d.end(), [&](double x) {
          return x == d[0] || (x != x && d[0] != d[0]);
        }))
      return ex::lit(d[0], v.dtype());
    std::string b = materialise(v);
    return ref(b, v.dtype(), std::move(idx));
  }
  return ref(v.buffer, v.dtype(), std::move(idx));
}

ir::Expr Context::read_bcast(const Value& v, const std::vector<ir::Expr>& out_idx) {
  const std::size_t r = v.rank();
  if (r > out_idx.size()) throw std::runtime_error("internal: broadcast read of a higher-rank value");
  std::vector<ir::Expr> idx;
  const std::size_t off = out_idx.size() - r;
  for (std::size_t k = 0; k < r; ++k) idx.push_back(v.shape()[k] == 1 ? ex::ilit(0) : out_idx[off + k]);
  return read(v, std::move(idx));
}

// ---------------------------------------------------------------- nests

Loops Context::loops(const Shape& spatial, const Shape& reduce, std::size_t no_bind) {
  Loops l;
  std::size_t bind = spatial.size();
  for (std::size_t k = 0; k < spatial.size(); ++k)
    if (k != no_bind && spatial[k] >= 2 && spatial[k] <= 1024) { bind = k; break; }
  std::size_t next_var = 0;
  auto add = [&](std::int64_t ext, bool is_bound, std::vector<ir::Expr>& dst) {
    if (ext == 1) { dst.push_back(ex::ilit(0)); return; }
    ir::Loop h;
    h.extent = ext;
    if (is_bound) { h.kind = ir::LoopKind::B; h.var = "tx"; }
    else { h.kind = ir::LoopKind::L; h.var = var_name(next_var++); }
    dst.push_back(ex::var(h.var));
    l.headers.push_back(h);
  };
  for (std::size_t k = 0; k < spatial.size(); ++k) add(spatial[k], k == bind, l.sp);
  for (auto e : reduce) add(e, false, l.rd);
  if (l.headers.empty()) l.headers.push_back(ir::Loop{ir::LoopKind::B, 1, "tx", 0});
  return l;
}

void Context::emit(const Loops& l, std::vector<ir::Stmt> body) {
  ir::Nest n;
  n.loops = l.headers;
  for (auto& s : body) n.body.push_back(ir::Item{std::move(s)});
  prog_.nests.push_back(std::move(n));
}

void Context::emit1(const Loops& l, ir::Expr lhs, ir::Expr rhs) {
  ir::Stmt s;
  s.lhs = std::move(lhs);
  s.rhs = std::move(rhs);
  emit(l, {std::move(s)});
}

void Context::emit_copy(const std::string& dst, ir::DType dt, const Shape& shape, const Value& src) {
  Loops l = loops(shape);
  ir::Expr rhs = read_bcast(src, l.sp);
  emit1(l, ref(dst, dt, l.sp), std::move(rhs));
}

void Context::finish(const std::vector<std::string>& graph_outputs) {
  for (const auto& name : graph_outputs) {
    auto& bufs = output_names_.at(name);
    const Value& v = value(name);
    Value src = v;
    for (const auto& b : bufs) {
      if (output_written_[b] && b == v.buffer) continue;
      for (auto& k : outputs_)
        if (k.name == b) { k.dtype = src.dtype(); k.shape = src.shape(); }
      buf_dtype_[b] = src.dtype();
      emit_copy(b, src.dtype(), src.shape(), src);
      output_written_[b] = true;
    }
  }
}

std::vector<ir::KnownBuffer> Context::known() const {
  std::vector<ir::KnownBuffer> k = inputs_;
  k.insert(k.end(), consts_.begin(), consts_.end());
  k.insert(k.end(), params_known_.begin(), params_known_.end());
  k.insert(k.end(), outputs_.begin(), outputs_.end());
  return k;
}

}  // namespace steptp::frontend::onnx_detail
