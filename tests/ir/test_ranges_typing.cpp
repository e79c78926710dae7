// LEIR.md §7.2 range analysis (affine formula, exact interval rules checked against brute force) and §7.3 typing.
#include <gtest/gtest.h>

#include <random>

#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/ranges.hpp"
#include "ir/typing.hpp"
#include "validate_test_util.hpp"

using namespace steptp::ir;

namespace {
std::vector<Loop> loops_of(std::vector<std::pair<std::string, std::int64_t>> v) {
  std::vector<Loop> out;
  for (auto& [n, e] : v) out.push_back(Loop{LoopKind::L, e, n, 0});
  return out;
}
LoopBox box_of(const std::vector<Loop>& ls) {
  std::vector<const Loop*> p;
  for (const auto& l : ls) p.push_back(&l);
  return make_loop_box(p);
}
IndexRange range(const std::string& e, const std::vector<Loop>& ls) { return index_range(parse_expr(e), box_of(ls)); }

// Brute-force evaluation of an index expression (floor division/modulo); false on division by zero.
bool eval(const Expr& e, const std::map<std::string, std::int64_t>& v, std::int64_t& out) {
  std::int64_t a = 0, b = 0;
  switch (e.kind) {
    case ExprKind::IntLit: out = e.ival; return true;
    case ExprKind::Var: out = v.at(e.text); return true;
    case ExprKind::Group: return eval(e.args[0], v, out);
    case ExprKind::Neg: if (!eval(e.args[0], v, a)) return false; out = -a; return true;
    case ExprKind::Binary:
      if (!eval(e.args[0], v, a) || !eval(e.args[1], v, b)) return false;
      switch (e.bop) {
        case BinOp::Add: out = a + b; return true;
        case BinOp::Sub: out = a - b; return true;
        case BinOp::Mul: out = a * b; return true;
        case BinOp::FloorDiv:
        case BinOp::Mod: {
          if (b == 0) return false;
          std::int64_t q = a / b;
          if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
          out = e.bop == BinOp::FloorDiv ? q : a - b * q;
          return true;
        }
        default: return false;
      }
    default: return false;
  }
}
}  // namespace

TEST(Ranges, AffineNormalFormAndExactRange) {
  auto f = affine_form(parse_expr("3999-a"));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->c0, 3999);
  EXPECT_EQ(f->coeff("a"), -1);
  auto ls = loops_of({{"a", 4000}, {"c", 32}, {"d", 4}});
  EXPECT_EQ(range("3999-a", ls).lo, 0);
  EXPECT_EQ(range("3999-a", ls).hi, 3999);
  EXPECT_EQ(range("c-1", ls).lo, -1);
  EXPECT_EQ(range("c-1", ls).hi, 30);
  EXPECT_EQ(range("c*2+d*3", ls).hi, 71);
  EXPECT_EQ(range("-(c-d)*2", ls).lo, -62);
  EXPECT_EQ(range("-(c-d)*2", ls).hi, 6);
  // Terms cancel: a-a is the constant 0; products by constant expressions are affine.
  auto g = affine_form(parse_expr("a-a+c*(2+1)"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->terms.size(), 1u);
  EXPECT_EQ(g->coeff("c"), 3);
  EXPECT_FALSE(affine_form(parse_expr("a*c")));
  EXPECT_FALSE(affine_form(parse_expr("a//2")));
  EXPECT_EQ(range("a", ls).points, 0u);  // affine entries are not enumerated
}

TEST(Ranges, NonAffineEntries) {
  auto ls = loops_of({{"a", 4}, {"c", 16}, {"d", 10}});
  IndexRange r = range("(a*16+c)//16", ls);
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 3);
  EXPECT_EQ(r.points, 64u);
  r = range("d%4", ls);
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 3);
  r = range("(2*d)%4", ls);  // only even residues
  EXPECT_EQ(r.lo, 0);
  EXPECT_EQ(r.hi, 2);
  r = range("(a*c)%7", ls);
  EXPECT_EQ(r.hi, 6);
  r = range("(d+3)%16", ls);  // inside one period: [3, 12]
  EXPECT_EQ(r.lo, 3);
  EXPECT_EQ(r.hi, 12);
  r = range("a//(c-1)", ls);  // c=1 divides by zero (E217), at the first point of the box where it does
  EXPECT_EQ(r.status, RangeStatus::DivByZero);
  EXPECT_EQ(r.zero_at, "a=0, c=1");
  EXPECT_EQ(range("a%(c-1)", ls).status, RangeStatus::DivByZero);
  EXPECT_EQ(range("A^{i64,g}_{a}+1", ls).status, RangeStatus::Gather);
  EXPECT_EQ(range("q+1", ls).status, RangeStatus::Unbound);
  EXPECT_EQ(range("a/2", ls).status, RangeStatus::Undefined);
  auto big = loops_of({{"a", 1024}, {"c", 1024}, {"d", 1024}});
  r = range("(a*c*d)%7", big);
  EXPECT_EQ(r.status, RangeStatus::TooLarge);
  EXPECT_EQ(r.points, std::uint64_t{1} << 30);
  EXPECT_TRUE(range("(a*c)%7", big).exact());  // 2^20 points
  // Enumeration wraps in i64 (LEIR.md §8.2) without UB: at a*c=0 the dividend is -2^63, and
  // -2^63 mod (2^63-1) = 2^63-2 (floor modulo).
  r = range("(a*c-9223372036854775807-1)%9223372036854775807", ls);
  ASSERT_TRUE(r.exact());
  EXPECT_EQ(r.hi, INT64_MAX - 1);
}

TEST(Ranges, RandomNonAffineEntriesMatchBruteForce) {
  // Random quasi-affine and polynomial entries over a small box: the analysis (interval rules or enumeration)
  // must give exactly the brute-force minimum and maximum.
  std::mt19937 rng(12345);
  const std::vector<std::string> vars = {"a", "c", "d"};
  auto ls = loops_of({{"a", 5}, {"c", 7}, {"d", 12}});
  std::function<std::string(int)> gen = [&](int depth) -> std::string {
    int k = depth <= 0 ? static_cast<int>(rng() % 2) : static_cast<int>(rng() % 7);
    switch (k) {
      case 0: return vars[rng() % 3];
      case 1: return std::to_string(static_cast<int>(rng() % 9) - 2);
      case 2: return "(" + gen(depth - 1) + "+" + gen(depth - 1) + ")";
      case 3: return "(" + gen(depth - 1) + "-" + gen(depth - 1) + ")";
      case 4: return "(" + gen(depth - 1) + "*" + gen(depth - 1) + ")";
      case 5: return "(" + gen(depth - 1) + "//" + std::to_string(1 + rng() % 6) + ")";
      default: return "(" + gen(depth - 1) + "%" + std::to_string(1 + rng() % 6) + ")";
    }
  };
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = gen(4);
    Expr e = parse_expr(text);
    IndexRange r = index_range(e, box_of(ls));
    ASSERT_TRUE(r.exact()) << text;
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (std::int64_t a = 0; a < 5; ++a)
      for (std::int64_t c = 0; c < 7; ++c)
        for (std::int64_t d = 0; d < 12; ++d) {
          std::int64_t v = 0;
          ASSERT_TRUE(eval(e, {{"a", a}, {"c", c}, {"d", d}}, v));
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
    EXPECT_EQ(r.lo, lo) << text;
    EXPECT_EQ(r.hi, hi) << text;
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

TEST(Typing, ConstantsAndFolding) {
  EXPECT_EQ(constant_class(parse_expr("1+2*3")), ConstClass::Int);
  EXPECT_EQ(constant_class(parse_expr("1/2")), ConstClass::Float);
  EXPECT_EQ(constant_class(parse_expr("-inf")), ConstClass::Float);
  EXPECT_EQ(constant_class(parse_expr("sqrt(2)")), ConstClass::Float);
  EXPECT_EQ(constant_class(parse_expr("1<2")), ConstClass::Bool);
  EXPECT_EQ(constant_class(parse_expr("a+1")), ConstClass::None);
  EXPECT_EQ(fold_int_constant(parse_expr("-7//2")), -4);
  EXPECT_EQ(fold_int_constant(parse_expr("-7%2")), 1);
  EXPECT_EQ(fold_int_constant(parse_expr("7%-2")), -1);
  EXPECT_EQ(fold_int_constant(parse_expr("1//0")), std::nullopt);
  EXPECT_EQ(fold_int_constant(parse_expr("9223372036854775807*2")), std::nullopt);
  EXPECT_EQ(fold_constant_f64(parse_expr("1/2")), 0.5);
  EXPECT_EQ(fold_constant_f64(parse_expr("if_then_else(1<2,3,log(0))")), 3.0);
  EXPECT_EQ(fold_constant_f64(parse_expr("-7.0//2")), -4.0);
  EXPECT_EQ(float_type_for(DType::F16), DType::F16);
  EXPECT_EQ(float_type_for(DType::I32), DType::F64);
}

TEST(Typing, StaticTypesFollowTheTable) {
  using testutil::make_task;
  // Statement target f16: 0.5 and -inf take F = f16; 1<=c<129 compares in i64; min(2,255-c*3)+1 is i64.
  Task t = make_task("A:input:f16:4x200;I:input:i32:4;J:input:u32:4;C:output:f16:4x200;D:output:i64:4x200",
                     "B^{4}_{tx=0}L^{200}_{c=0}[C^{f16,g}_{tx,c}=if_then_else(1<=c<129,A^{f16,g}_{tx,c}*0.5,-inf);"
                     "D^{i64,g}_{tx,c}=min(2,255-c*3)+1+I^{i32,g}_{tx}+J^{u32,g}_{tx}+c**2;];");
  Analysis a = analyze(t);
  ASSERT_TRUE(a.diags.empty()) << a.diags[0].full();
  const Stmt& s = t.program.nests[0].body[0].stmt();
  const Expr& ite = s.rhs;
  EXPECT_EQ(ite.ty, DType::F16);
  EXPECT_EQ(ite.args[0].ty, DType::Bool);
  EXPECT_EQ(ite.args[0].args[0].ty, DType::I64);  // the weak 1 takes c's type
  EXPECT_EQ(ite.args[0].args[2].ty, DType::I64);
  EXPECT_EQ(ite.args[1].ty, DType::F16);
  EXPECT_EQ(ite.args[1].args[1].ty, DType::F16);  // 0.5
  EXPECT_EQ(ite.args[2].ty, DType::F16);          // -inf
  const Stmt& d = t.program.nests[0].body[1].stmt();
  // ((((min(2,255-c*3)+1)+I)+J)+c**2)
  const Expr& sum4 = d.rhs;
  EXPECT_EQ(sum4.args[1].ty, DType::F64);  // c**2: promote(i64, weak) is not a float type -> F = f64
  EXPECT_EQ(sum4.ty, DType::F64);
  const Expr& sum3 = sum4.args[0];
  EXPECT_EQ(sum3.ty, DType::I64);  // i32 + u32: mixed signedness -> i64 (and i64 + u32 -> i64)
  const Expr& mn = sum3.args[0].args[0].args[0];
  ASSERT_EQ(mn.kind, ExprKind::Call);
  EXPECT_EQ(mn.ty, DType::I64);
  EXPECT_EQ(mn.args[0].ty, DType::I64);
}

TEST(Typing, WeakWholeValueTakesTheTargetType) {
  using testutil::make_task;
  Task t = make_task("C:output:f32:4;D:output:u8:4",
                     "B^{4}_{tx=0}[C^{f32,g}_{tx}=2*3;D^{u8,g}_{tx}=if_then_else(tx<2,1,0);];");
  Analysis a = analyze(t);
  ASSERT_TRUE(a.diags.empty());
  EXPECT_EQ(t.program.nests[0].body[0].stmt().rhs.ty, DType::F32);
  EXPECT_EQ(t.program.nests[0].body[0].stmt().rhs.args[0].ty, DType::F32);
  const Expr& ite = t.program.nests[0].body[1].stmt().rhs;
  EXPECT_EQ(ite.ty, DType::U8);
  EXPECT_EQ(ite.args[1].ty, DType::U8);
  EXPECT_EQ(ite.args[0].ty, DType::Bool);
}

TEST(Typing, FloatPromotion) {
  EXPECT_EQ(promote(DType::F16, DType::BF16), DType::F32);
  EXPECT_EQ(promote(DType::I32, DType::F16), DType::F16);
  EXPECT_EQ(promote(DType::Bool, DType::U8), DType::U8);
  using testutil::make_task;
  Task t = make_task("A:input:f16:4;B:input:bf16:4;C:output:f32:4",
                     "B^{4}_{tx=0}[C^{f32,g}_{tx}=exp(A^{f16,g}_{tx}+B^{bf16,g}_{tx})+sqrt(tx);];");
  // `B` is not a valid buffer name (loop kind letter): E110 — and typing still runs.
  Analysis a = analyze(t);
  ASSERT_EQ(testutil::codes(a), std::vector<std::string>{"E110"});
  const Expr& sum = t.program.nests[0].body[0].stmt().rhs;
  EXPECT_EQ(sum.args[0].ty, DType::F32);  // exp(f16+bf16) = exp(f32)
  EXPECT_EQ(sum.args[1].ty, DType::F32);  // sqrt(i64) -> F = f32
  EXPECT_EQ(sum.ty, DType::F32);
}
