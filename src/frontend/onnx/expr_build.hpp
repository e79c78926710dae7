// Small builders for synthesized LEIR expressions used by the ONNX importer. They insert explicit group nodes
// exactly where the LEIR precedence (LEIR.md §4, §9: | & cmp +- */ // % unary-minus **) requires them, so the
// printed text re-parses to the same tree. Negative literals become unary minus (LEIR literals are unsigned).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::frontend::ex {

using ir::Expr;

/// Literal of value v for an operand of dtype t (f32/f16/bf16 values via shortest_f32): floats print as float literals (inf/-inf via `inf`, NaN as
/// (0.0/0.0)); integers and bool as integer literals.
Expr lit(double v, ir::DType t);
Expr ilit(std::int64_t v);
/// The double nearest to the shortest decimal that round-trips `v` as an f32 (f32 attribute 1e-5 prints 1e-05).
double shortest_f32(double v);
Expr flit(double v);
Expr var(const std::string& name);

Expr bin(ir::BinOp op, Expr a, Expr b);
inline Expr add(Expr a, Expr b) { return bin(ir::BinOp::Add, std::move(a), std::move(b)); }
inline Expr sub(Expr a, Expr b) { return bin(ir::BinOp::Sub, std::move(a), std::move(b)); }
inline Expr mul(Expr a, Expr b) { return bin(ir::BinOp::Mul, std::move(a), std::move(b)); }
inline Expr div(Expr a, Expr b) { return bin(ir::BinOp::Div, std::move(a), std::move(b)); }
inline Expr fdiv(Expr a, Expr b) { return bin(ir::BinOp::FloorDiv, std::move(a), std::move(b)); }
inline Expr mod(Expr a, Expr b) { return bin(ir::BinOp::Mod, std::move(a), std::move(b)); }
inline Expr pow(Expr a, Expr b) { return bin(ir::BinOp::Pow, std::move(a), std::move(b)); }
inline Expr land(Expr a, Expr b) { return bin(ir::BinOp::And, std::move(a), std::move(b)); }
inline Expr lor(Expr a, Expr b) { return bin(ir::BinOp::Or, std::move(a), std::move(b)); }
Expr neg(Expr a);
Expr cmp(ir::CmpOp op, Expr a, Expr b);
/// lo <= e < hi as one chain.
Expr in_range(Expr e, std::int64_t lo, std::int64_t hi);
Expr call(ir::Func f, std::vector<Expr> args);
inline Expr ite(Expr c, Expr a, Expr b) { return call(ir::Func::IfThenElse, {std::move(c), std::move(a), std::move(b)}); }
inline Expr emax(Expr a, Expr b) { return call(ir::Func::Max, {std::move(a), std::move(b)}); }
inline Expr emin(Expr a, Expr b) { return call(ir::Func::Min, {std::move(a), std::move(b)}); }
inline Expr eexp(Expr a) { return call(ir::Func::Exp, {std::move(a)}); }
inline Expr elog(Expr a) { return call(ir::Func::Log, {std::move(a)}); }
inline Expr esqrt(Expr a) { return call(ir::Func::Sqrt, {std::move(a)}); }
/// tanh(x) = 1 - 2/(exp(2x)+1) (saturates to +-1 without inf/inf) and sigmoid(x) = 1/(1+exp(-x)): LEIR has no
/// such functions (LEIR.md §4).
Expr tanh_of(const Expr& x);
Expr sigmoid_of(const Expr& x);

/// Index arithmetic that stays affine and tidy: e*c (c==1: e, c==0: 0), e+c (c<0: e-|c|, c==0: e).
Expr scale(Expr e, std::int64_t c);
Expr offset(Expr e, std::int64_t c);
/// Is `e` the integer literal v?
bool is_int(const Expr& e, std::int64_t v);

}  // namespace steptp::frontend::ex
