// LEIR.md §7.1 buffer table and consistency checks; collection of statements and occurrences for the validator.
#include <string>

#include "ir/scopes.hpp"
#include "ir/validate_detail.hpp"

namespace steptp::ir::detail {

int ProgramFacts::find(const std::string& name) const {
  auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

namespace {

// In-memory trees may be malformed (the parser never produces these): report and skip the statement.
bool well_formed(const Expr& e, DiagSink& sink) {
  bool ok = true;
  const std::size_t n = e.args.size();
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::Inf:
    case ExprKind::Var: ok = n == 0; break;
    case ExprKind::Ref: break;
    case ExprKind::Neg:
    case ExprKind::Group: ok = n == 1; break;
    case ExprKind::Binary: ok = n == 2; break;
    case ExprKind::Compare: ok = n >= 2 && e.cmps.size() + 1 == n; break;
    case ExprKind::Call:
      if (static_cast<int>(n) != func_arity(e.fn)) {
        sink.at(e, Code::E008, std::string(func_name(e.fn)) + " takes " + std::to_string(func_arity(e.fn)) +
                               " argument(s), got " + std::to_string(n));
        return false;
      }
      break;
  }
  if (!ok) {
    sink.at(e, Code::E002, "malformed expression node");
    return false;
  }
  for (const auto& c : e.args) ok = well_formed(c, sink) && ok;
  return ok;
}

void collect_occs(const Expr& e, std::size_t stmt, bool guarded, std::vector<Occurrence>& out) {
  if (e.kind == ExprKind::Ref) {
    out.push_back({&e, stmt, false, guarded});
    for (const auto& c : e.args) collect_occs(c, stmt, guarded, out);
    return;
  }
  const bool ite = e.kind == ExprKind::Call && e.fn == Func::IfThenElse;
  for (std::size_t i = 0; i < e.args.size(); ++i) collect_occs(e.args[i], stmt, guarded || (ite && i > 0), out);
}

}  // namespace

ProgramFacts collect(Program& p, DiagSink& sink) {
  ProgramFacts f;
  for_each_stmt_mut(p, [&](Stmt& s, const std::vector<const Loop*>& loops, std::size_t top) {
    StmtCtx c;
    c.stmt = &s;
    c.loops = loops;
    c.top = top;
    if (s.lhs.kind != ExprKind::Ref) {
      sink.at(s, Code::E002, "statement target is not a buffer reference");
      c.well_formed = false;
    } else {
      bool ok = true;
      for (const auto& entry : s.lhs.args) ok = well_formed(entry, sink) && ok;
      ok = well_formed(s.rhs, sink) && ok;
      c.well_formed = ok;
    }
    f.stmts.push_back(std::move(c));
  });
  for (std::size_t i = 0; i < f.stmts.size(); ++i) {
    const Stmt& s = *f.stmts[i].stmt;
    if (!f.stmts[i].well_formed) continue;
    f.occs.push_back({&s.lhs, i, true, false});
    for (const auto& entry : s.lhs.args) collect_occs(entry, i, false, f.occs);
    collect_occs(s.rhs, i, false, f.occs);
  }
  return f;
}

void check_buffers(const Task& t, ProgramFacts& f, DiagSink& sink) {
  for (std::size_t k = 0; k < t.known.size(); ++k) {
    const KnownBuffer& kb = t.known[k];
    BufState b;
    b.info.name = kb.name;
    b.info.known = true;
    b.info.role = kb.role;
    b.info.dtype = kb.dtype;
    b.info.scope = Scope::Global;
    b.info.shape = kb.shape;
    b.known_index = static_cast<int>(k);
    b.rank = kb.shape.size();
    f.bufs.push_back(std::move(b));
    f.index.emplace(kb.name, static_cast<int>(k));
  }
  f.stmt_target.assign(f.stmts.size(), -1);
  std::vector<char> warned_dtype, warned_scope;
  for (Occurrence& o : f.occs) {
    const Expr& r = *o.ref;
    int bi = f.find(r.text);
    bool first = false;
    if (bi < 0) {
      BufState b;
      b.info.name = r.text;
      b.info.dtype = r.dtype;
      b.info.scope = r.scope;
      b.rank = r.rank();
      f.bufs.push_back(std::move(b));
      bi = static_cast<int>(f.bufs.size()) - 1;
      f.index.emplace(r.text, bi);
    }
    o.buf = bi;
    BufState& b = f.bufs[bi];
    if (!b.first) {
      first = true;
      b.first = &r;
      if (!is_valid_buffer_name(r.text)) sink.at(r, Code::E110,
                                                 "invalid or reserved buffer name '" + r.text +
                                                     "' (a name matches [A-Z][a-z]*, does not start with B, L, P, "
                                                     "T, U or V, the loop kinds and TVMScript's alias, and is not "
                                                     "None or False; LEIR.md §5)");
    }
    warned_dtype.resize(f.bufs.size(), 0);
    warned_scope.resize(f.bufs.size(), 0);
    const bool unsupported = !is_supported(r.dtype);
    if (unsupported)
      sink.at(r, Code::E106, "unsupported dtype " + std::string(dtype_name(r.dtype)) + " for " + r.text);
    if (b.info.known) {
      if (!unsupported && r.dtype != b.info.dtype && !warned_dtype[bi]) {
        warned_dtype[bi] = 1;
        sink.at(r, Code::W001, "superscript dtype " + std::string(dtype_name(r.dtype)) + " of known buffer " + r.text +
                               " differs from its known dtype " + std::string(dtype_name(b.info.dtype)));
      }
      if (r.scope != Scope::Global && !warned_scope[bi]) {
        warned_scope[bi] = 1;
        sink.at(r, Code::W002, "superscript scope " + std::string(scope_name(r.scope)) + " of known buffer " + r.text +
                               " is ignored (known buffers are global)");
      }
    } else if (!first) {
      if (r.dtype != b.info.dtype && !unsupported)
        sink.at(r, Code::E203, "dtype " + std::string(dtype_name(r.dtype)) + " of " + r.text +
                               " disagrees with its first occurrence (" + std::string(dtype_name(b.info.dtype)) + ")");
      if (r.scope != b.info.scope)
        sink.at(r, Code::E204, "scope " + std::string(scope_name(r.scope)) + " of " + r.text +
                               " disagrees with its first occurrence (" + std::string(scope_name(b.info.scope)) + ")");
    }
    if (r.rank() != b.rank && !(first && !b.info.known)) {
      b.rank_error = true;
      sink.at(r, Code::E202, "rank " + std::to_string(r.rank()) + " of " + r.text + " differs from " +
                             (b.info.known ? "its known shape's rank " : "its first occurrence's rank ") +
                             std::to_string(b.rank));
    }
    const std::size_t top = f.stmts[o.stmt].top;
    if (o.write) {
      f.stmt_target[o.stmt] = bi;
      if (b.info.known && b.info.role != Role::Output)
        sink.at(r, Code::E201, "write to " + std::string(role_name(b.info.role)) + " " + r.text);
      if (!b.first_write) {
        b.first_write = &r;
        b.first_write_top = top;
      }
    } else {
      b.read = true;
    }
  }
  // Whole-program facts, per buffer.
  for (BufState& b : f.bufs) {
    if (b.info.known) {
      const std::string path = "known[" + std::to_string(b.known_index) + "]";
      if (b.info.role == Role::Output && !b.first_write)
        sink.at_path(path, Code::E210, "output " + b.info.name + " is never written");
      if (b.info.role != Role::Output && !b.read)
        sink.at_path(path, Code::W004, std::string(role_name(b.info.role)) + " " + b.info.name + " is never read");
      continue;
    }
    if (!b.first_write) {
      sink.at(*b.first, Code::E205, "intermediate " + b.info.name + " is never written");
    } else if (!b.read) {
      sink.at(*b.first_write, Code::W005, "intermediate " + b.info.name + " is written but never read");
    }
  }
  // Per occurrence: reads before the first writing nest (E205) and scoped buffers across nests (E214).
  std::vector<char> e205(f.bufs.size(), 0), e214(f.bufs.size(), 0);
  std::vector<std::size_t> first_top(f.bufs.size(), SIZE_MAX);
  for (const Occurrence& o : f.occs) {
    const int bi = o.buf;
    BufState& b = f.bufs[bi];
    const std::size_t top = f.stmts[o.stmt].top;
    if (first_top[bi] == SIZE_MAX) first_top[bi] = top;
    if (!b.info.known && !o.write && b.first_write && top < b.first_write_top && !e205[bi]) {
      e205[bi] = 1;
      sink.at(*o.ref, Code::E205, "intermediate " + b.info.name + " is read in nest " + std::to_string(top + 1) +
                                  " before the first nest that writes it (nest " +
                                  std::to_string(b.first_write_top + 1) + ")");
    }
    if (!b.info.known && b.info.scope != Scope::Global && top != first_top[bi] && !e214[bi]) {
      e214[bi] = 1;
      sink.at(*o.ref, Code::E214, std::string(scope_name(b.info.scope)) + " intermediate " + b.info.name +
                                  " is used in two top-level nests (" + std::to_string(first_top[bi] + 1) +
                                  " and " + std::to_string(top + 1) + ")");
    }
  }
}

}  // namespace steptp::ir::detail
