// LEIR lexer and recursive-descent parser (LEIR.md §3, §4).
#include "ir/parser.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace steptp::ir {
namespace {

enum class Tok : std::uint8_t {
  Caret,    // ^{
  Under,    // _{
  Pow,      // **
  FDiv,     // //
  Le, Ge, EqEq, Ne,
  Plus, Minus, Star, Slash, Percent, Lt, Gt, Amp, Bar, Assign,
  LParen, RParen, LBrack, RBrack, RBrace, Comma, Semi,
  Upper,    // [A-Z][a-z]*
  Lower,    // [a-z][a-z0-9_]*
  Int,      // integer literal
  Float,    // float literal
  End,
};

struct Token {
  Tok kind;
  std::uint32_t pos;  // 0-based
  std::uint32_t len;
};

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void fail(std::string_view text, Code code, std::string msg, std::uint32_t pos0) {
  Diagnostic d = make_diag(code, std::move(msg), pos0 + 1);
  d.excerpt = make_excerpt(text, d.offset);
  throw LeirError(std::move(d));
}

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  out.reserve(s.size() / 2 + 4);
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto push = [&](Tok k, std::size_t len) {
    out.push_back({k, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(len)});
    i += len;
  };
  while (i < n) {
    const char c = s[i];
    const char d = i + 1 < n ? s[i + 1] : '\0';
    switch (c) {
      case ' ': case '\t': case '\r': case '\n': ++i; continue;
      case '^': if (d == '{') { push(Tok::Caret, 2); continue; } break;
      case '_': if (d == '{') { push(Tok::Under, 2); continue; } break;
      case '*': if (d == '*') push(Tok::Pow, 2); else push(Tok::Star, 1); continue;
      case '/': if (d == '/') push(Tok::FDiv, 2); else push(Tok::Slash, 1); continue;
      case '<': if (d == '=') push(Tok::Le, 2); else push(Tok::Lt, 1); continue;
      case '>': if (d == '=') push(Tok::Ge, 2); else push(Tok::Gt, 1); continue;
      case '=': if (d == '=') push(Tok::EqEq, 2); else push(Tok::Assign, 1); continue;
      case '!': if (d == '=') { push(Tok::Ne, 2); continue; } break;
      case '+': push(Tok::Plus, 1); continue;
      case '-': push(Tok::Minus, 1); continue;
      case '%': push(Tok::Percent, 1); continue;
      case '&': push(Tok::Amp, 1); continue;
      case '|': push(Tok::Bar, 1); continue;
      case '(': push(Tok::LParen, 1); continue;
      case ')': push(Tok::RParen, 1); continue;
      case '[': push(Tok::LBrack, 1); continue;
      case ']': push(Tok::RBrack, 1); continue;
      case '}': push(Tok::RBrace, 1); continue;
      case ',': push(Tok::Comma, 1); continue;
      case ';': push(Tok::Semi, 1); continue;
      default: break;
    }
    if (is_upper(c)) {
      std::size_t j = i + 1;
      while (j < n && is_lower(s[j])) ++j;
      push(Tok::Upper, j - i);
      continue;
    }
    if (is_lower(c)) {
      std::size_t j = i + 1;
      while (j < n && (is_lower(s[j]) || is_digit(s[j]) || s[j] == '_')) ++j;
      push(Tok::Lower, j - i);
      continue;
    }
    if (is_digit(c)) {
      std::size_t j = i;
      while (j < n && is_digit(s[j])) ++j;
      bool flt = false;
      if (j + 1 < n && s[j] == '.' && is_digit(s[j + 1])) {
        flt = true;
        j += 1;
        while (j < n && is_digit(s[j])) ++j;
      }
      if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < n && is_digit(s[k])) {
          flt = true;
          j = k;
          while (j < n && is_digit(s[j])) ++j;
        }
      }
      if (j < n && (is_lower(s[j]) || is_upper(s[j]) || is_digit(s[j]) || s[j] == '.' || s[j] == '_'))
        fail(s, Code::E003, "malformed number", static_cast<std::uint32_t>(i));
      push(flt ? Tok::Float : Tok::Int, j - i);
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80)
      fail(s, Code::E001, "non-ASCII character", static_cast<std::uint32_t>(i));
    fail(s, Code::E001, std::string("stray character '") + c + "'", static_cast<std::uint32_t>(i));
  }
  out.push_back({Tok::End, static_cast<std::uint32_t>(n), 0});
  return out;
}

struct Parser {
  std::string_view src;
  std::vector<Token> toks;
  std::size_t p = 0;
  // Depth accounting (E015). `depth` counts the recursive descents in progress (nests' loop headers and the
  // expression levels that recurse: groups, calls, subscripts, unary minus, exponents); `height` is the height of
  // the subtree the last parse function returned. Both stay within kMaxNestingDepth, so neither this parser nor
  // any later recursive pass over the tree recurses deeper than the limit.
  int depth = 0;
  int height = 0;

  /// RAII: one more level of descent; E015 at `t` beyond the limit.
  struct Descend {
    Parser& ps;
    int n;
    Descend(Parser& p, const Token& t, int levels = 1) : ps(p), n(levels) {
      ps.depth += n;
      if (ps.depth > kMaxNestingDepth) ps.too_deep(t);
    }
    ~Descend() { ps.depth -= n; }
  };
  [[noreturn]] void too_deep(const Token& t) const {
    error(t, Code::E015, "nesting deeper than " + std::to_string(kMaxNestingDepth) +
                         " levels (loop headers plus expression levels on one path)");
  }
  /// Records a subtree of height h built at token t (E015 beyond the limit).
  void set_height(int h, const Token& t) {
    if (h > kMaxNestingDepth) too_deep(t);
    height = h;
  }

  const Token& peek(std::size_t k = 0) const {
    std::size_t i = p + k;
    return i < toks.size() ? toks[i] : toks.back();
  }
  std::string_view text(const Token& t) const { return src.substr(t.pos, t.len); }
  std::uint32_t off(const Token& t) const { return t.pos + 1; }
  bool at(Tok k) const { return peek().kind == k; }

  [[noreturn]] void error(const Token& t, Code code, std::string msg) const {
    fail(src, code, std::move(msg), t.pos);
  }
  [[noreturn]] void unexpected(const Token& t, std::string_view expected) const {
    std::string got = t.kind == Tok::End ? std::string("end of text") : "'" + std::string(text(t)) + "'";
    error(t, Code::E002, "unexpected " + got + ", expected " + std::string(expected));
  }
  const Token& expect(Tok k, std::string_view what) {
    if (!at(k)) unexpected(peek(), what);
    return toks[p++];
  }

  static bool is_kind_letter(std::string_view w) {
    return w.size() == 1 && (w[0] == 'L' || w[0] == 'P' || w[0] == 'V' || w[0] == 'U' || w[0] == 'B');
  }
  // `kind "^{" integer`: the start of a nest header.
  bool at_header() const {
    const Token& t = peek();
    return t.kind == Tok::Upper && is_kind_letter(text(t)) && peek(1).kind == Tok::Caret &&
           peek(2).kind == Tok::Int;
  }

  std::int64_t parse_int_token(const Token& t) const {
    std::int64_t v = 0;
    auto sv = text(t);
    auto r = std::from_chars(sv.data(), sv.data() + sv.size(), v);
    if (r.ec != std::errc() || r.ptr != sv.data() + sv.size()) error(t, Code::E003, "integer literal out of range");
    return v;
  }

  Program program() {
    Program prog;
    if (at(Tok::End)) error(peek(), Code::E012, "empty program");
    while (!at(Tok::End)) {
      if (!at_header()) unexpected(peek(), "a loop header");
      prog.nests.push_back(nest());
    }
    return prog;
  }

  Loop header() {
    Loop l;
    const Token& k = toks[p++];
    l.offset = off(k);
    switch (text(k)[0]) {
      case 'L': l.kind = LoopKind::L; break;
      case 'P': l.kind = LoopKind::P; break;
      case 'V': l.kind = LoopKind::V; break;
      case 'U': l.kind = LoopKind::U; break;
      default: l.kind = LoopKind::B; break;
    }
    expect(Tok::Caret, "'^{'");
    const Token& ext = expect(Tok::Int, "a loop extent");
    std::int64_t e = 0;
    auto sv = text(ext);
    auto r = std::from_chars(sv.data(), sv.data() + sv.size(), e);
    if (r.ec != std::errc() || e < 1 || e >= (std::int64_t{1} << 31))
      error(ext, Code::E006, "loop extent " + std::string(sv) + " outside [1, 2^31)");
    l.extent = e;
    expect(Tok::RBrace, "'}'");
    expect(Tok::Under, "'_{'");
    const Token& v = peek();
    if (v.kind != Tok::Lower) {
      unexpected(v, "a loop variable");
    }
    check_loopvar_word(v);
    l.var = std::string(text(v));
    ++p;
    expect(Tok::Assign, "'='");
    const Token& st = peek();
    if (st.kind == Tok::Int || st.kind == Tok::Float) {
      if (text(st) != "0") error(st, Code::E005, "loop start must be 0, got " + std::string(text(st)));
      ++p;
    } else if (st.kind == Tok::Minus) {
      error(st, Code::E005, "loop start must be 0");
    } else {
      unexpected(st, "the loop start 0");
    }
    expect(Tok::RBrace, "'}'");
    return l;
  }

  void check_loopvar_word(const Token& t) const {
    for (char c : text(t))
      if (!is_lower(c)) error(t, Code::E013, "invalid identifier '" + std::string(text(t)) + "'");
  }

  // Height of a nest: its loop headers plus the highest body item (a statement is 1 + its highest side).
  Nest nest() {
    Nest n;
    const Token& first = peek();
    n.offset = off(first);
    while (at_header()) {
      const Token& h = peek();
      n.loops.push_back(header());
      if (depth + static_cast<int>(n.loops.size()) > kMaxNestingDepth) too_deep(h);
    }
    if (n.loops.empty()) unexpected(peek(), "a loop header");
    Descend in(*this, first, static_cast<int>(n.loops.size()));
    int body_h = 0;
    const Token& lb = expect(Tok::LBrack, "'[' or another loop header");
    if (at(Tok::RBrack)) error(lb, Code::E011, "empty body");
    while (!at(Tok::RBrack)) {
      if (at(Tok::End)) unexpected(peek(), "']'");
      if (at_header()) {
        n.body.push_back(Item{nest()});
      } else {
        const Token& st = peek();
        Descend s_in(*this, st);
        Stmt s = stmt();
        expect(Tok::Semi, "';'");
        n.body.push_back(Item{std::move(s)});
        set_height(height + 1, st);
      }
      body_h = std::max(body_h, height);
    }
    ++p;  // ]
    if (at(Tok::Semi)) {
      ++p;
    } else if (at_header()) {
      Nest t = nest();
      t.tail = true;
      n.body.push_back(Item{std::move(t)});
      body_h = std::max(body_h, height);
    } else {
      unexpected(peek(), "';' or a loop header after ']'");
    }
    set_height(body_h + static_cast<int>(n.loops.size()), first);
    return n;
  }

  Stmt stmt() {
    Stmt s;
    const Token& t = peek();
    s.offset = off(t);
    if (t.kind != Tok::Upper) unexpected(t, "a statement (buffer reference)");
    s.lhs = ref();
    const int lhs_h = height;
    expect(Tok::Assign, "'='");
    s.rhs = expr();
    height = std::max(lhs_h, height);
    return s;
  }

  Expr ref() {
    const Token& name = toks[p++];
    Expr e;
    e.kind = ExprKind::Ref;
    e.offset = off(name);
    e.text = std::string(text(name));
    expect(Tok::Caret, "'^{' after a buffer name");
    const Token& dt = peek();
    if (dt.kind != Tok::Lower) unexpected(dt, "a dtype");
    auto d = parse_dtype(text(dt));
    if (!d) error(dt, Code::E009, "unknown dtype '" + std::string(text(dt)) + "'");
    e.dtype = *d;
    ++p;
    expect(Tok::Comma, "','");
    const Token& sc = peek();
    if (sc.kind != Tok::Lower) unexpected(sc, "a scope");
    auto s = parse_scope(text(sc));
    if (!s) error(sc, Code::E010, "unknown scope '" + std::string(text(sc)) + "'");
    e.scope = *s;
    ++p;
    expect(Tok::RBrace, "'}'");
    int h = 0;
    if (at(Tok::Under)) {
      const Token& under = toks[p++];
      if (at(Tok::RBrace)) error(under, Code::E004, "empty subscript");
      Descend in(*this, under);
      e.args.push_back(expr());
      h = height;
      while (at(Tok::Comma)) {
        ++p;
        e.args.push_back(expr());
        h = std::max(h, height);
      }
      expect(Tok::RBrace, "',' or '}' in a subscript");
    }
    set_height(h + 1, name);
    return e;
  }

  Expr expr() { return orx(); }

  // A left-associative chain a+b+c is a left spine of Binary nodes: its height grows with its length although
  // the parser does not recurse, so every link is checked against the limit.
  Expr binary_chain(Expr (Parser::*sub)(), std::initializer_list<std::pair<Tok, BinOp>> ops) {
    Expr lhs = (this->*sub)();
    for (;;) {
      const int lhs_h = height;
      const Token& t = peek();
      const std::pair<Tok, BinOp>* hit = nullptr;
      for (const auto& o : ops)
        if (o.first == t.kind) hit = &o;
      if (!hit) return lhs;
      ++p;
      Expr rhs = (this->*sub)();
      std::uint32_t o = lhs.offset;
      lhs = make_binary(hit->second, std::move(lhs), std::move(rhs));
      lhs.offset = o;
      set_height(std::max(lhs_h, height) + 1, t);
    }
  }

  Expr orx() { return binary_chain(&Parser::andx, {{Tok::Bar, BinOp::Or}}); }
  Expr andx() { return binary_chain(&Parser::cmpx, {{Tok::Amp, BinOp::And}}); }

  static bool relop(Tok k, CmpOp& op) {
    switch (k) {
      case Tok::Lt: op = CmpOp::Lt; return true;
      case Tok::Le: op = CmpOp::Le; return true;
      case Tok::Gt: op = CmpOp::Gt; return true;
      case Tok::Ge: op = CmpOp::Ge; return true;
      case Tok::EqEq: op = CmpOp::Eq; return true;
      case Tok::Ne: op = CmpOp::Ne; return true;
      default: return false;
    }
  }

  Expr cmpx() {
    Expr first = sum();
    CmpOp op;
    if (!relop(peek().kind, op)) return first;
    Expr c;
    c.kind = ExprKind::Compare;
    c.offset = first.offset;
    c.args.push_back(std::move(first));
    int h = height;
    const Token& t = peek();
    while (relop(peek().kind, op)) {
      ++p;
      c.cmps.push_back(op);
      c.args.push_back(sum());
      h = std::max(h, height);
    }
    set_height(h + 1, t);
    return c;
  }

  Expr sum() { return binary_chain(&Parser::prod, {{Tok::Plus, BinOp::Add}, {Tok::Minus, BinOp::Sub}}); }
  Expr prod() {
    return binary_chain(&Parser::unary, {{Tok::Star, BinOp::Mul},
                                         {Tok::Slash, BinOp::Div},
                                         {Tok::FDiv, BinOp::FloorDiv},
                                         {Tok::Percent, BinOp::Mod}});
  }

  Expr unary() {
    if (at(Tok::Minus)) {
      const Token& t = peek();
      Descend in(*this, t);
      ++p;
      Expr e = make_neg(unary());
      e.offset = off(t);
      set_height(height + 1, t);
      return e;
    }
    return power();
  }

  Expr power() {
    Expr base = atom();
    if (!at(Tok::Pow)) return base;
    const int base_h = height;
    const Token& t = toks[p++];
    Descend in(*this, t);
    Expr ex = unary();
    set_height(std::max(base_h, height) + 1, t);
    std::uint32_t o = base.offset;
    Expr e = make_binary(BinOp::Pow, std::move(base), std::move(ex));
    e.offset = o;
    return e;
  }

  static bool func_of(std::string_view w, Func& f) {
    static constexpr std::pair<std::string_view, Func> kFuncs[] = {
        {"exp", Func::Exp}, {"log", Func::Log}, {"sqrt", Func::Sqrt}, {"abs", Func::Abs},
        {"erf", Func::Erf}, {"max", Func::Max}, {"min", Func::Min},   {"if_then_else", Func::IfThenElse}};
    for (const auto& [n, fn] : kFuncs)
      if (n == w) {
        f = fn;
        return true;
      }
    return false;
  }

  Expr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Int: {
        ++p;
        Expr e = make_int(parse_int_token(t));
        e.text = std::string(text(t));
        e.offset = off(t);
        height = 1;
        return e;
      }
      case Tok::Float: {
        ++p;
        auto sv = text(t);
        double v = std::strtod(std::string(sv).c_str(), nullptr);
        if (!std::isfinite(v)) error(t, Code::E003, "float literal out of range");
        Expr e = make_float(v);
        e.text = std::string(sv);
        e.offset = off(t);
        height = 1;
        return e;
      }
      case Tok::Upper: return ref();
      case Tok::LParen: {
        Descend in(*this, t);
        ++p;
        Expr inner = expr();
        expect(Tok::RParen, "')'");
        Expr g = make_group(std::move(inner));
        g.offset = off(t);
        set_height(height + 1, t);
        return g;
      }
      case Tok::Lower: {
        auto w = text(t);
        Func f;
        if (peek(1).kind == Tok::LParen) {
          if (!func_of(w, f)) error(t, Code::E007, "unknown function '" + std::string(w) + "'");
          p += 2;
          Descend in(*this, t);
          Expr c = make_call(f, {});
          c.offset = off(t);
          if (at(Tok::RParen)) error(peek(), Code::E008, std::string(w) + "() takes " + std::to_string(func_arity(f)) + " argument(s), got 0");
          c.args.push_back(expr());
          int h = height;
          while (at(Tok::Comma)) {
            ++p;
            c.args.push_back(expr());
            h = std::max(h, height);
          }
          set_height(h + 1, t);
          expect(Tok::RParen, "',' or ')'");
          if (static_cast<int>(c.args.size()) != func_arity(f))
            error(t, Code::E008, std::string(w) + "() takes " + std::to_string(func_arity(f)) + " argument(s), got " +
                                 std::to_string(c.args.size()));
          return c;
        }
        if (w == "inf") {
          ++p;
          Expr e = make_inf();
          e.offset = off(t);
          height = 1;
          return e;
        }
        for (char ch : w)
          if (!is_lower(ch)) error(t, Code::E013, "invalid identifier '" + std::string(w) + "'");
        if (func_of(w, f)) error(t, Code::E013, "function name '" + std::string(w) + "' used as a variable");
        ++p;
        Expr e = make_var(std::string(w));
        e.offset = off(t);
        height = 1;
        return e;
      }
      default: unexpected(t, "an expression");
    }
  }
};

}  // namespace

namespace {
void check_size(std::string_view text) {
  if (text.size() > kMaxProgramBytes)
    fail(text.substr(0, 80), Code::E014,
         "program text of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
             std::to_string(kMaxProgramBytes) + " bytes",
         0);
}
}  // namespace

Program parse_program(std::string_view text) {
  check_size(text);
  Parser ps{text, lex(text)};
  return ps.program();
}

Expr parse_expr(std::string_view text) {
  check_size(text);
  Parser ps{text, lex(text)};
  Expr e = ps.expr();
  if (!ps.at(Tok::End)) ps.unexpected(ps.peek(), "end of expression");
  return e;
}

}  // namespace steptp::ir
