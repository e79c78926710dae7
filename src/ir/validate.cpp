// LEIR validator entry points (LEIR.md §7, §8.4, §8.5): runs the passes in validate_detail.hpp, annotates the AST
// and turns pending diagnostics into Diagnostics on the canonical text.
#include "ir/validate.hpp"

#include <algorithm>
#include <unordered_map>

#include "ir/init_rule.hpp"
#include "ir/limits.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate_detail.hpp"

namespace steptp::ir {

std::int64_t BufferInfo::numel() const {
  std::int64_t n = 1;  // saturates at the i64 maximum (inferred shapes of invalid programs can be huge)
  for (auto e : shape)
    if (__builtin_mul_overflow(n, e, &n)) return INT64_MAX;
  return n;
}

bool Analysis::ok() const { return first_error() == nullptr; }

const Diagnostic* Analysis::first_error() const {
  for (const auto& d : diags)
    if (!d.is_warning()) return &d;
  return nullptr;
}

const BufferInfo* Analysis::find(std::string_view name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

namespace {

using OffsetMap = std::unordered_map<const void*, std::uint32_t>;

// Parallel walk of the analysed program and its canonical re-parse: maps each node to its canonical offset.
// Explicit groups the printer added for precedence exist only in the re-parse and are stepped through.
void map_expr(const Expr& a, const Expr* b, OffsetMap& m) {
  while (b->kind == ExprKind::Group && a.kind != ExprKind::Group && b->args.size() == 1) b = &b->args[0];
  m[&a] = b->offset;
  if (a.kind != b->kind || a.args.size() != b->args.size()) return;
  for (std::size_t i = 0; i < a.args.size(); ++i) map_expr(a.args[i], &b->args[i], m);
}

void map_nest(const Nest& a, const Nest& b, OffsetMap& m) {
  m[&a] = b.offset;
  for (std::size_t i = 0; i < a.loops.size() && i < b.loops.size(); ++i) m[&a.loops[i]] = b.loops[i].offset;
  if (a.body.size() != b.body.size()) return;
  for (std::size_t i = 0; i < a.body.size(); ++i) {
    const Item& x = a.body[i];
    const Item& y = b.body[i];
    if (x.is_stmt() != y.is_stmt()) return;
    if (x.is_stmt()) {
      m[&x.stmt()] = y.stmt().offset;
      map_expr(x.stmt().lhs, &y.stmt().lhs, m);
      map_expr(x.stmt().rhs, &y.stmt().rhs, m);
    } else {
      map_nest(x.nest(), y.nest(), m);
    }
  }
}

// Offsets and excerpts refer to the canonical text (LEIR.md §12): printed once, and only when some diagnostic
// points into the program. If the canonical text does not re-parse (invalid names in an in-memory tree), the
// nodes' own offsets are kept.
std::vector<Diagnostic> finish(const Program& p, std::vector<detail::PendingDiag> pending) {
  const bool any_node = std::any_of(pending.begin(), pending.end(), [](auto& d) { return d.node != nullptr; });
  std::string text;
  if (any_node) {
    text = print_program(p);
    OffsetMap m;
    try {
      Program canon = parse_program(text);
      if (canon.nests.size() == p.nests.size())
        for (std::size_t i = 0; i < p.nests.size(); ++i) map_nest(p.nests[i], canon.nests[i], m);
    } catch (const std::exception&) {
      m.clear();
    }
    for (auto& d : pending) {
      if (!d.node) continue;
      if (auto it = m.find(d.node); it != m.end()) d.diag.offset = it->second;
      d.diag.excerpt = make_excerpt(text, d.diag.offset);
    }
  }
  std::stable_sort(pending.begin(), pending.end(), [](const detail::PendingDiag& a, const detail::PendingDiag& b) {
    const bool pa = a.node == nullptr, pb = b.node == nullptr;
    if (pa != pb) return pb;  // text positions first, then known-list diagnostics
    return a.diag.offset < b.diag.offset;
  });
  std::vector<Diagnostic> out;
  out.reserve(pending.size());
  for (auto& d : pending) out.push_back(std::move(d.diag));
  return out;
}

bool uses_var(const Stmt& s, std::string_view var) { return mentions_var(s.lhs, var) || mentions_var(s.rhs, var); }

}  // namespace

Analysis analyze(Task& t) {
  // A tree deeper than the parser accepts (built in memory by a strategy or a generator) is refused before any
  // recursive pass runs over it (LEIR.md §12, E015).
  std::uint32_t deep_at = 0;
  if (const int h = syntax_height(t.program, &deep_at); h > kMaxNestingDepth) {
    Analysis a;
    Diagnostic d = make_diag(Code::E015, "nesting " + std::to_string(h) + " levels deep, over the limit of " +
                                                 std::to_string(kMaxNestingDepth), deep_at);
    a.diags.push_back(std::move(d));
    return a;
  }
  detail::DiagSink sink;
  detail::ProgramFacts f = detail::collect(t.program, sink);
  detail::check_scopes(t.program, sink);
  detail::check_buffers(t, f, sink);

  // §7.3 typing, statement by statement.
  const RefDtypeFn ref_dtype = [&f](const Expr& ref) {
    const int bi = f.find(ref.text);
    return bi < 0 ? ref.dtype : f.bufs[bi].info.dtype;
  };
  for (std::size_t i = 0; i < f.stmts.size(); ++i) {
    if (!f.stmts[i].well_formed) continue;
    const int bi = f.stmt_target[i];
    const DType target = bi < 0 ? f.stmts[i].stmt->lhs.dtype : f.bufs[bi].info.dtype;
    detail::type_statement(*f.stmts[i].stmt, target, ref_dtype, sink);
  }

  detail::check_ranges(t, f, sink);

  // §8.4 initialisers and reduction variables, in text order.
  std::unordered_map<std::string, bool> written;
  for (const auto& c : f.stmts) {
    Stmt& s = *c.stmt;
    s.init = InitKind::None;
    s.reduction_vars.clear();
    if (!c.well_formed) continue;
    const int bi = f.find(s.lhs.text);
    const bool read_only = bi >= 0 && f.bufs[bi].info.known && f.bufs[bi].info.role != Role::Output;
    s.init = statement_initialiser(s, read_only || written.count(s.lhs.text) > 0);
    s.reduction_vars = reduction_vars(s, c.loops);
    written[s.lhs.text] = true;
    if (s.init == InitKind::None) continue;
    if (s.reduction_vars.empty()) {
      sink.at(s, Code::W003, "statement with an initialiser has no reduction variable: the initialiser fires on "
                         "every iteration");
      continue;
    }
    for (const Loop* l : c.loops) {
      if (l->extent > 1 && !uses_var(s, l->var)) {
        sink.at(s, Code::W003, "statement with an initialiser sits under loop '" + l->var +
                               "' whose variable it never uses: the initialiser fires more than once");
        break;
      }
    }
  }

  Analysis a;
  a.buffers.reserve(f.bufs.size());
  for (auto& b : f.bufs) a.buffers.push_back(std::move(b.info));
  a.diags = finish(t.program, std::move(sink.items));
  return a;
}

Analysis validate_or_throw(Task& t) {
  Analysis a = analyze(t);
  if (const Diagnostic* e = a.first_error()) throw LeirError(*e);
  return a;
}

bool is_reducing_loop(const Nest& nest_holding_loop, const std::string& var) {
  bool reducing = false;
  auto walk = [&](const Nest& n, auto& self) -> void {
    for (const auto& it : n.body) {
      if (reducing) return;
      if (it.is_nest()) {
        self(it.nest(), self);
        continue;
      }
      bool mentioned = false;
      for (const auto& entry : it.stmt().lhs.args) mentioned = mentioned || mentions_var(entry, var);
      if (!mentioned) reducing = true;
    }
  };
  walk(nest_holding_loop, walk);
  return reducing;
}

}  // namespace steptp::ir
