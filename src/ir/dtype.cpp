#include "ir/dtype.hpp"

#include <array>

namespace steptp::ir {
namespace {
struct DTypeRow { DType t; std::string_view leir, tvm, c; int bits; };
constexpr std::array<DTypeRow, 22> kRows{{
    {DType::F16, "f16", "float16", "_Float16", 16},
    {DType::BF16, "bf16", "bfloat16", "__bf16", 16},
    {DType::F32, "f32", "float32", "float", 32},
    {DType::F64, "f64", "float64", "double", 64},
    {DType::I8, "i8", "int8", "int8_t", 8},
    {DType::I16, "i16", "int16", "int16_t", 16},
    {DType::I32, "i32", "int32", "int32_t", 32},
    {DType::I64, "i64", "int64", "int64_t", 64},
    {DType::U8, "u8", "uint8", "uint8_t", 8},
    {DType::U16, "u16", "uint16", "uint16_t", 16},
    {DType::U32, "u32", "uint32", "uint32_t", 32},
    {DType::U64, "u64", "uint64", "uint64_t", 64},
    {DType::Bool, "bool", "bool", "bool", 8},
    {DType::I4, "i4", "int4", "", 4},
    {DType::U4, "u4", "uint4", "", 4},
    {DType::F8E4M3FN, "f8e4m3fn", "float8_e4m3fn", "", 8},
    {DType::F8E4M3FNUZ, "f8e4m3fnuz", "float8_e4m3fnuz", "", 8},
    {DType::F8E5M2, "f8e5m2", "float8_e5m2", "", 8},
    {DType::F8E5M2FNUZ, "f8e5m2fnuz", "float8_e5m2fnuz", "", 8},
    {DType::C64, "c64", "complex64", "", 64},
    {DType::C128, "c128", "complex128", "", 128},
    {DType::Str, "str", "str", "", 0},
}};
const DTypeRow* row(DType t) {
  auto i = static_cast<std::size_t>(t);
  return i < kRows.size() ? &kRows[i] : nullptr;
}
}  // namespace

std::string_view dtype_name(DType t) { auto r = row(t); return r ? r->leir : "invalid"; }
std::string_view dtype_tvm_name(DType t) { auto r = row(t); return r ? r->tvm : "invalid"; }
std::string_view dtype_c_name(DType t) { auto r = row(t); return r ? r->c : "void"; }
std::optional<DType> parse_dtype(std::string_view s) {
  for (const auto& r : kRows)
    if (r.leir == s) return r.t;
  return std::nullopt;
}
std::string_view scope_name(Scope s) { return s == Scope::Global ? "g" : s == Scope::Shared ? "s" : "l"; }
std::string_view scope_tvm_name(Scope s) {
  return s == Scope::Global ? "global" : s == Scope::Shared ? "shared" : "local";
}
std::optional<Scope> parse_scope(std::string_view s) {
  if (s == "g") return Scope::Global;
  if (s == "s") return Scope::Shared;
  if (s == "l") return Scope::Local;
  return std::nullopt;
}
bool is_supported(DType t) { return t <= DType::Bool; }
bool is_float(DType t) { return t <= DType::F64; }
bool is_signed_int(DType t) { return t >= DType::I8 && t <= DType::I64; }
bool is_unsigned_int(DType t) { return t >= DType::U8 && t <= DType::U64; }
bool is_int(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
int dtype_bits(DType t) { auto r = row(t); return r ? r->bits : 0; }
int dtype_bytes(DType t) { return (dtype_bits(t) + 7) / 8; }

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool fa = is_float(a), fb = is_float(b);
  if (fa && !fb) return a;
  if (fb && !fa) return b;
  if (fa && fb) {
    if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16)) return DType::F32;
    return dtype_bits(a) >= dtype_bits(b) ? a : b;
  }
  if (is_signed_int(a) == is_signed_int(b)) return dtype_bits(a) >= dtype_bits(b) ? a : b;
  return DType::I64;
}

}  // namespace steptp::ir
