// Reference interpreter (LEIR.md §8): construction, run(), and the out-of-line parts of the closure tree.
#include "interp/interpreter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <mutex>

#include <fmt/format.h>

#include "interp/checker.hpp"
#include "interp/compile.hpp"
#include "ir/limits.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::interp {

std::int64_t Tensor::numel() const {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

namespace detail {

std::string element_name(const Ctx& c, int buf, std::int64_t off) {
  if (!c.desc) return "#" + std::to_string(off);
  const BufDesc& d = (*c.desc)[static_cast<std::size_t>(buf)];
  std::string s = d.name;
  if (d.shape.empty()) return s;
  s += '[';
  std::int64_t rest = off;
  for (std::size_t k = 0; k < d.shape.size(); ++k) {
    if (k) s += ',';
    const std::int64_t st = d.strides[k];
    s += std::to_string(st ? rest / st : 0);
    if (st) rest %= st;
  }
  s += "] (flat " + std::to_string(off) + ")";
  return s;
}

void raise(const Ctx& c, Code code, const std::string& what) {
  ir::Diagnostic d;
  d.code = code_str(code);
  d.message = what;
  if (c.cur) {
    d.offset = c.cur->offset;
    d.message += " in statement `" + c.cur->text + "`";
    if (c.cur_elem >= 0) d.message += " computing " + element_name(c, c.cur->buf, c.cur_elem);
    if (!c.cur->loop_vars.empty()) {
      d.message += " at ";
      for (std::size_t k = 0; k < c.cur->loop_vars.size(); ++k) {
        if (k) d.message += ", ";
        d.message += c.cur->loop_vars[k].first + "=" + std::to_string(c.vars[c.cur->loop_vars[k].second]);
      }
    }
    if (c.src) d.excerpt = ir::make_excerpt(*c.src, d.offset);
  }
  throw ir::LeirError(std::move(d));
}

}  // namespace detail

void check_step_budget(const ir::Task& task, std::uint64_t budget, std::string_view flag) {
  if (budget == 0) return;
  const std::uint64_t n = ir::statement_executions(task.program);
  if (n <= budget) return;
  const std::string est = n == ~std::uint64_t{0} ? std::string("over 1.8e19") : fmt::format("{:.3g}", double(n));
  throw ir::LeirError(Code::E309,
                      fmt::format("work estimate {} statement executions per run exceeds the budget of {:.3g} "
                                  "(raise it with {} N, 0 for no limit)",
                                  est, double(budget), flag),
                      1);
}

std::uint64_t run_memory_bytes(const ir::Task& task) {
  ir::Task copy = task;
  const ir::Analysis a = ir::validate_or_throw(copy);
  std::uint64_t total = 0;
  bool saturated = false;
  for (const auto& b : a.buffers) {
    const ir::KnownBuffer* k = task.find_known(b.name);
    const std::uint64_t per = k && k->role != ir::Role::Output ? 17 : 9;
    std::uint64_t bytes = 0;
    saturated |= __builtin_mul_overflow(static_cast<std::uint64_t>(b.numel()), per, &bytes);
    saturated |= __builtin_add_overflow(total, bytes, &total);
  }
  return saturated ? ~std::uint64_t{0} : total;
}

void check_memory_budget(const ir::Task& task, std::uint64_t budget, std::string_view flag) {
  if (budget == 0) return;
  const std::uint64_t n = run_memory_bytes(task);
  if (n <= budget) return;
  const double mib = 1024.0 * 1024.0;
  throw ir::LeirError(Code::E310, fmt::format("memory estimate {:.4g} MiB for one run exceeds the budget of {:.4g} MiB "
                                          "(raise it with {} MIB, 0 for no limit)",
                                          double(n) / mib, double(budget) / mib, flag),
                      1);
}

namespace detail {

void step_limit_reached(Ctx& c) {
  if (c.steps > c.hard_limit) raise(c, Code::E308, "step limit exceeded");
  if (c.opt && c.opt->progress) c.opt->progress(c.steps);
  const std::uint64_t every = c.opt && c.opt->progress_every ? c.opt->progress_every : ~std::uint64_t{0};
  c.limit = c.hard_limit - c.limit < every ? c.hard_limit : c.limit + every;  // calls after k * every steps
}

void raise_uninit(const Ctx& c, int buf, std::int64_t off) {
  raise(c, Code::E301, "read of uninitialised element " + element_name(c, buf, off));
}
void raise_oob(const Ctx& c, int buf, std::int64_t off) {
  raise(c, Code::E302, "flat index " + std::to_string(off) + " out of bounds for " +
                       (c.desc ? (*c.desc)[static_cast<std::size_t>(buf)].name : std::string("buffer")));
}

std::int64_t generic_offset(const RefInfo& r, Ctx& c) {
  std::int64_t off = 0;
  for (std::size_t k = 0; k < r.entries.size(); ++k) {
    const std::int64_t v = r.entries[k]->i(c);
    if (r.check_dim[k] && (v < 0 || v >= r.shape[k])) {
      const std::string name = c.desc ? (*c.desc)[static_cast<std::size_t>(r.buf)].name : std::string("buffer");
      raise(c, Code::E302, "index " + std::to_string(v) + " out of bounds for dimension " + std::to_string(k) + " of " +
                           name + " (extent " + std::to_string(r.shape[k]) + ")");
    }
    off += v * r.strides[k];
  }
  if (off < 0 || off >= c.bufs[r.buf].numel) raise_oob(c, r.buf, off);
  return off;
}

double RefGenF::f(Ctx& c) const {
  const std::int64_t o = generic_offset(r, c);
  const BufState& s = c.bufs[r.buf];
  if (r.check_init && !s.init[o]) raise_uninit(c, r.buf, o);
  if (c.chk) checked_read(c, r, o);
  return s.f[o];
}
std::int64_t RefGenI::i(Ctx& c) const {
  const std::int64_t o = generic_offset(r, c);
  const BufState& s = c.bufs[r.buf];
  if (r.check_init && !s.init[o]) raise_uninit(c, r.buf, o);
  if (c.chk) checked_read(c, r, o);
  return s.i[o];
}

void StmtNode::exec_generic(Ctx& c) const {
  step(c);
  std::int64_t o = lhs_affine ? eval_affine<-1>(lhs_aff, c.vars) : generic_offset(lhs, c);
  BufState& s = c.bufs[buf];
  if (o < 0 || o >= s.numel) raise_oob(c, buf, o);
  c.cur_elem = o;
  if (has_init && init_fires(c)) {
    if (c.chk) checked_write(c, *this, o);
    if (is_float) s.f[o] = init_f;
    else s.i[o] = init_i;
    s.init[o] = 1;
  }
  if (is_float) {
    const double v = rf->f(c);
    if (c.chk) checked_write(c, *this, o);
    s.f[o] = v;
  } else {
    const std::int64_t v = ri->i(c);
    if (c.chk) checked_write(c, *this, o);
    s.i[o] = v;
  }
  s.init[o] = 1;
}

double CmpChain::as_double(std::size_t k, double d, std::int64_t i, Prec p) const {
  if (ops[k].f) return round_to(d, p);
  return round_to(ops[k].ty == ir::DType::U64 ? static_cast<double>(static_cast<std::uint64_t>(i)) : static_cast<double>(i), p);
}

bool CmpChain::holds(std::size_t k, double ld, std::int64_t li, double rd, std::int64_t ri) const {
  const CmpPair& p = pairs[k];
  auto apply = [&](auto a, auto b) {
    switch (p.op) {
      case ir::CmpOp::Lt: return a < b;
      case ir::CmpOp::Le: return a <= b;
      case ir::CmpOp::Gt: return a > b;
      case ir::CmpOp::Ge: return a >= b;
      case ir::CmpOp::Eq: return a == b;
      case ir::CmpOp::Ne: return a != b;
    }
    return false;
  };
  if (p.kind == CmpPair::Float) return apply(as_double(k, ld, li, p.p), as_double(k + 1, rd, ri, p.p));
  if (p.kind == CmpPair::Unsigned) return apply(static_cast<std::uint64_t>(li), static_cast<std::uint64_t>(ri));
  return apply(li, ri);
}

std::int64_t CmpChain::i(Ctx& c) const {
  auto eval = [&](std::size_t k, double& d, std::int64_t& i) {
    if (ops[k].f) d = ops[k].f->f(c);
    else i = ops[k].i->i(c);
  };
  double ld = 0, rd = 0;
  std::int64_t li = 0, ri = 0;
  eval(0, ld, li);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    eval(k + 1, rd, ri);
    if (!holds(k, ld, li, rd, ri)) return 0;
    ld = rd;
    li = ri;
  }
  return 1;
}

}  // namespace detail

struct Interpreter::Impl {
  ir::Task task;
  ir::Analysis analysis;
  std::string text;  // canonical program text (offsets and excerpts refer to it)
  mutable std::mutex mu;
  mutable std::array<std::unique_ptr<detail::Compiled>, 8> variants;
  mutable std::atomic<std::uint64_t> steps{0};
  mutable std::atomic<std::uint64_t> batched_steps{0};

  const detail::Compiled& variant(bool typed, bool checked, bool probes = false) const {
    std::lock_guard<std::mutex> lock(mu);
    auto& v = variants[(typed ? 1 : 0) + (checked ? 2 : 0) + (probes ? 4 : 0)];
    if (!v) v = detail::compile_program(task, analysis, typed, checked, probes);
    return *v;
  }
};

namespace {
/// A tensor element (a double holding an integer) as a `t` value: truncated, then wrapped modulo 2^bits (so u64
/// values at or above 2^63 survive). False for NaN and infinities (E304).
bool tensor_value_to_int(double v, ir::DType t, std::int64_t* out) {
  if (!std::isfinite(v)) return false;
  const double x = std::trunc(v), two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  std::uint64_t u = 0;
  if (x >= -two63 && x < two63) {
    u = static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  } else {
    double m = std::fmod(x, two64);  // exact
    if (m < 0) m += two64;           // may round up to 2^64 (value -> 0 modulo 2^64)
    u = m >= two64 ? 0 : m >= two63 ? static_cast<std::uint64_t>(m)
                                    : static_cast<std::uint64_t>(static_cast<std::int64_t>(m));
  }
  *out = steptp_num::wrap_int(static_cast<std::int64_t>(u), ir::dtype_bits(t), ir::is_signed_int(t));
  return true;
}

/// Statements built in memory have offset 0: take the offsets of the canonical text instead (LEIR.md §12).
void fill_offsets(ir::Task& t, const std::string& text) {
  bool missing = false;
  ir::for_each_stmt(t.program, [&](const ir::Stmt& s, auto&, std::size_t) { missing |= s.offset == 0; });
  if (!missing) return;
  ir::Program re = ir::parse_program(text);
  std::vector<std::uint32_t> offs;
  ir::for_each_stmt(re, [&](const ir::Stmt& s, auto&, std::size_t) { offs.push_back(s.offset); });
  std::size_t k = 0;
  ir::for_each_stmt_mut(t.program, [&](ir::Stmt& s, auto&, std::size_t) {
    if (k < offs.size() && s.offset == 0) s.offset = offs[k];
    ++k;
  });
}
}  // namespace

Interpreter::Interpreter(const ir::Task& task) : impl_(std::make_unique<Impl>()) {
  impl_->task = task;
  impl_->analysis = ir::validate_or_throw(impl_->task);
  impl_->text = ir::print_program(impl_->task.program);
  fill_offsets(impl_->task, impl_->text);
  impl_->variant(false, false);  // compile the default variant now (errors surface at construction)
}
Interpreter::~Interpreter() = default;
Interpreter::Interpreter(Interpreter&&) noexcept = default;

std::uint64_t Interpreter::last_steps() const { return impl_->steps.load(); }
std::uint64_t Interpreter::last_batched_steps() const { return impl_->batched_steps.load(); }
const ir::Task& Interpreter::task() const { return impl_->task; }
const ir::Analysis& Interpreter::analysis() const { return impl_->analysis; }

TensorMap Interpreter::run(const TensorMap& inputs, const RunOptions& opt) const {
  using namespace detail;
  const Compiled& P = impl_->variant(opt.typed, opt.checked, opt.coverage != nullptr);
  const std::size_t nb = P.bufs.size();
  std::vector<std::vector<double>> fst(nb);
  std::vector<std::vector<std::int64_t>> ist(nb);
  std::vector<std::vector<std::uint8_t>> ini(nb);
  std::vector<std::unique_ptr<double[]>> fraw(nb);  // intermediates, not zeroed
  std::vector<std::unique_ptr<std::int64_t[]>> iraw(nb);
  std::vector<BufState> st(nb);
  Ctx c;
  c.desc = &P.bufs;
  c.src = &impl_->text;
  for (std::size_t b = 0; b < nb; ++b) {
    const BufDesc& d = P.bufs[b];
    const auto n = static_cast<std::size_t>(d.numel);
    st[b].numel = d.numel;
    if (!d.read_only) {
      ini[b].assign(n, 0);
      st[b].init = ini[b].data();
      if (!d.output) {  // an intermediate's values are read only where its initialised map says so (E301)
        if (d.is_float) st[b].f = (fraw[b] = std::make_unique_for_overwrite<double[]>(n)).get();
        else st[b].i = (iraw[b] = std::make_unique_for_overwrite<std::int64_t[]>(n)).get();
        continue;
      }
      if (d.is_float) fst[b].assign(n, 0.0);
      else ist[b].assign(n, 0);
      st[b].f = fst[b].data();
      st[b].i = ist[b].data();
      continue;
    }
    auto it = inputs.find(d.name);
    if (it == inputs.end()) throw std::invalid_argument("missing input " + d.name);
    if (it->second.shape != d.shape || it->second.data.size() != n)
      throw std::invalid_argument("input " + d.name + " has the wrong shape");
    // §8.1: inputs hold the supplied values converted to their dtypes (filled once, without zeroing first)
    const auto& src = it->second.data;
    if (d.is_float) {
      const Prec p = d.dtype == ir::DType::F32 ? Prec::P32 : d.dtype == ir::DType::F16 ? Prec::P16
                     : d.dtype == ir::DType::BF16 ? Prec::PB16 : Prec::P64;
      // values already in the dtype (make_inputs draws them so) are read in place: inputs, constants and params
      // are never written (E201), so no copy is needed
      bool exact = true;
      for (std::size_t k = 0; k < n && exact; ++k) {
        const double r = round_to(src[k], p);
        exact = r == src[k] || (r != r && src[k] != src[k]);
      }
      if (exact) {
        st[b].f = const_cast<double*>(src.data());
        continue;
      }
      fst[b].reserve(n);
      for (std::size_t k = 0; k < n; ++k) fst[b].push_back(round_to(src[k], p));
    } else {
      ist[b].reserve(n);
      for (std::size_t k = 0; k < n; ++k) {
        std::int64_t v = 0;
        if (d.dtype == ir::DType::Bool) v = src[k] != 0.0;
        else if (!tensor_value_to_int(src[k], d.dtype, &v))
          raise(c, Code::E304, "input " + element_name(c, static_cast<int>(b), static_cast<std::int64_t>(k)) +
                               " is not a valid " + std::string(ir::dtype_name(d.dtype)));
        ist[b].push_back(v);
      }
    }
    st[b].f = fst[b].data();
    st[b].i = ist[b].data();
  }
  std::vector<std::int64_t> vars(static_cast<std::size_t>(P.nslots) + 1, 0);
  c.vars = vars.data();
  // Batch temporaries are written before they are read (each node fills its slots), so they are not zeroed: for a
  // small program the zeroing of batch_temps x kBatch values twice dominated a run (a quarter of the fuzzer's time).
  const std::size_t nscratch = static_cast<std::size_t>(P.batch_temps) * kBatch;
  const auto fscratch = std::make_unique_for_overwrite<double[]>(nscratch);
  const auto iscratch = std::make_unique_for_overwrite<std::int64_t[]>(nscratch);
  c.fscratch = fscratch.get();
  c.fscratch_end = c.fscratch + nscratch;
  c.iscratch = iscratch.get();
  c.iscratch_end = c.iscratch + nscratch;
  c.bufs = st.data();
  if (opt.max_steps) c.hard_limit = opt.max_steps;
  c.opt = &opt;
  c.batching = opt.batched;  // probes count the lanes the scalar path evaluates, so batched runs count the same
  if (opt.coverage) {
    opt.coverage->counts.assign(P.probe_counters, 0);
    opt.coverage->operands.clear();
    c.cov = opt.coverage->counts.data();
    c.cmplog = &opt.coverage->operands;
  }
  c.limit = c.hard_limit;
  if (opt.progress && opt.progress_every) c.limit = std::min(c.hard_limit, opt.progress_every);
  std::unique_ptr<Checker> chk;
  if (opt.checked) {
    chk = std::make_unique<Checker>(P);
    c.chk = chk.get();
  }
  try {
    for (const auto& n : P.nests) n->exec(c);
  } catch (...) {
    impl_->steps = c.steps;
    impl_->batched_steps = c.batched_steps;
    throw;
  }
  impl_->steps = c.steps;
  impl_->batched_steps = c.batched_steps;
  c.cur = nullptr;
  TensorMap out;
  for (std::size_t b = 0; b < nb; ++b) {
    const BufDesc& d = P.bufs[b];
    if (!d.output) continue;
    for (std::size_t k = 0; k < ini[b].size(); ++k)
      if (!ini[b][k])
        raise(c, Code::E305, "output element " + element_name(c, static_cast<int>(b), static_cast<std::int64_t>(k)) +
                             " was never written");
    Tensor t;
    t.dtype = d.dtype;
    t.shape = d.shape;
    if (d.is_float) {
      t.data = std::move(fst[b]);
    } else {
      t.data.resize(ist[b].size());
      const bool u64 = d.dtype == ir::DType::U64;
      for (std::size_t k = 0; k < ist[b].size(); ++k)
        t.data[k] = u64 ? static_cast<double>(static_cast<std::uint64_t>(ist[b][k])) : static_cast<double>(ist[b][k]);
    }
    out.emplace(d.name, std::move(t));
  }
  return out;
}

}  // namespace steptp::interp
