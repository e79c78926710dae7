// Canonical LEIR printer (LEIR.md §9).
#include "ir/printer.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace steptp::ir {
namespace {

// Precedence of a node as an operand (LEIR.md §9): atoms 8, ** 7, unary minus 6, * / // % 5, + - 4,
// comparisons 3, & 2, | 1. A synthesized negative literal prints with a leading '-' and behaves like unary minus.
int prec(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Binary: return binop_precedence(e.bop);
    case ExprKind::Compare: return 3;
    case ExprKind::Neg: return 6;
    case ExprKind::IntLit: return (e.text.empty() && e.ival < 0) ? 6 : 8;
    case ExprKind::FloatLit: return (e.text.empty() && std::signbit(e.fval)) ? 6 : 8;
    default: return 8;
  }
}

struct Printer {
  std::string out;

  void operand(const Expr& e, bool parens) {
    if (parens) out += '(';
    expr(e);
    if (parens) out += ')';
  }

  void ref(const Expr& e) {
    out += e.text;
    out += "^{";
    out += dtype_name(e.dtype);
    out += ',';
    out += scope_name(e.scope);
    out += '}';
    if (!e.args.empty()) {
      out += "_{";
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ',';
        expr(e.args[i]);
      }
      out += '}';
    }
  }

  void expr(const Expr& e) {
    switch (e.kind) {
      case ExprKind::IntLit:
        if (!e.text.empty()) out += e.text;
        else out += std::to_string(e.ival);
        return;
      case ExprKind::FloatLit:
        if (!e.text.empty()) out += e.text;
        else out += python_float_repr(e.fval);
        return;
      case ExprKind::Inf: out += "inf"; return;
      case ExprKind::Var: out += e.text; return;
      case ExprKind::Ref: ref(e); return;
      case ExprKind::Call:
        out += func_name(e.fn);
        out += '(';
        for (std::size_t i = 0; i < e.args.size(); ++i) {
          if (i) out += ',';
          expr(e.args[i]);
        }
        out += ')';
        return;
      case ExprKind::Neg:
        out += '-';
        operand(e.args[0], prec(e.args[0]) < 6);
        return;
      case ExprKind::Group:
        out += '(';
        expr(e.args[0]);
        out += ')';
        return;
      case ExprKind::Compare:
        for (std::size_t i = 0; i < e.args.size(); ++i) {
          if (i) out += cmpop_text(e.cmps[i - 1]);
          operand(e.args[i], prec(e.args[i]) <= 3);
        }
        return;
      case ExprKind::Binary: {
        const int p = binop_precedence(e.bop);
        if (e.bop == BinOp::Pow) {
          operand(e.args[0], prec(e.args[0]) < 8);
          out += "**";
          operand(e.args[1], prec(e.args[1]) < 6);
        } else {
          operand(e.args[0], prec(e.args[0]) < p);
          out += binop_text(e.bop);
          operand(e.args[1], prec(e.args[1]) <= p);
        }
        return;
      }
    }
  }

  void loop(const Loop& l) {
    out += loop_kind_char(l.kind);
    out += "^{";
    out += std::to_string(l.extent);
    out += "}_{";
    out += l.var;
    out += "=0}";
  }

  void stmt(const Stmt& s) {
    ref(s.lhs);
    out += '=';
    expr(s.rhs);
    out += ';';
  }

  void nest(const Nest& n) {
    for (const auto& l : n.loops) loop(l);
    out += '[';
    const Nest* tail = nullptr;
    for (std::size_t i = 0; i < n.body.size(); ++i) {
      const Item& it = n.body[i];
      if (it.is_stmt()) {
        stmt(it.stmt());
      } else if (it.nest().tail && i + 1 == n.body.size() && i > 0) {  // alone it prints inside: never `H[]H2[…];`
        tail = &it.nest();
      } else {
        nest(it.nest());
      }
    }
    out += ']';
    if (tail) nest(*tail);
    else out += ';';
  }
};

}  // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  // sci = [-]d[.ddd]e[+-]XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  auto epos = sci.find('e');
  std::string mant = sci.substr(0, epos);
  int exp = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string res;
  if (exp >= -4 && exp <= 15) {
    if (exp < 0) {
      res.assign("0.");
      res.append(static_cast<std::size_t>(-exp - 1), '0');
      res.append(digits);
    } else {
      std::size_t ip = static_cast<std::size_t>(exp) + 1;
      if (digits.size() <= ip) {
        res = digits;
        res.append(ip - digits.size(), '0');
        res.append(".0");
      } else {
        res.assign(digits, 0, ip);
        res += '.';
        res.append(digits, ip);
      }
    }
  } else {
    res = digits.substr(0, 1);
    if (digits.size() > 1) {
      res += '.';
      res.append(digits, 1);
    }
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    res += eb;
  }
  if (neg) res.insert(res.begin(), '-');
  return res;
}

std::string print_program(const Program& p) {
  Printer pr;
  pr.out.reserve(256);
  for (const auto& n : p.nests) pr.nest(n);
  return std::move(pr.out);
}
std::string print_nest(const Nest& n) {
  Printer pr;
  pr.nest(n);
  return std::move(pr.out);
}
std::string print_stmt(const Stmt& s) {
  Printer pr;
  pr.stmt(s);
  return std::move(pr.out);
}
std::string print_expr(const Expr& e) {
  Printer pr;
  pr.expr(e);
  return std::move(pr.out);
}
std::string print_loop(const Loop& l) {
  Printer pr;
  pr.loop(l);
  return std::move(pr.out);
}
std::string print_subscript(const Expr& ref) {
  Printer pr;
  for (std::size_t i = 0; i < ref.args.size(); ++i) {
    if (i) pr.out += ',';
    pr.expr(ref.args[i]);
  }
  return std::move(pr.out);
}

namespace {
void fnv(std::uint64_t& h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
}
}  // namespace

std::uint64_t task_hash(const Task& t) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  fnv(h, print_program(t.program));
  for (const auto& k : t.known) {
    fnv(h, "\n");
    fnv(h, k.name);
    fnv(h, ":");
    fnv(h, role_name(k.role));
    fnv(h, ":");
    fnv(h, dtype_name(k.dtype));
    for (auto d : k.shape) {
      fnv(h, ",");
      fnv(h, std::to_string(d));
    }
  }
  return h;
}

std::string task_hash_hex(const Task& t) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(task_hash(t)));
  return buf;
}

}  // namespace steptp::ir
