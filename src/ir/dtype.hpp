// LEIR element types and storage scopes (LEIR.md §6).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace steptp::ir {

/// Element type of a buffer or an expression. The first 13 are supported; the rest are parsed and printed back
/// but rejected by the validator (E106). `Invalid` marks "not yet typed" in AST annotations.
enum class DType : std::uint8_t {
  F16, BF16, F32, F64,
  I8, I16, I32, I64,
  U8, U16, U32, U64,
  Bool,
  // parsed, unsupported (E106)
  I4, U4, F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, C64, C128, Str,
  Invalid
};

/// Storage scope: g global, s shared (per thread block), l local (per thread).
enum class Scope : std::uint8_t { Global, Shared, Local };

/// LEIR spelling of a dtype ("f32"). Throws nothing.
std::string_view dtype_name(DType t);
/// Parse a LEIR dtype spelling; nullopt if unknown (E009).
std::optional<DType> parse_dtype(std::string_view s);
/// TVM spelling ("float32").
std::string_view dtype_tvm_name(DType t);
/// C++ host spelling ("float", "_Float16", "int64_t").
std::string_view dtype_c_name(DType t);

std::string_view scope_name(Scope s);  // "g" "s" "l"
std::optional<Scope> parse_scope(std::string_view s);
std::string_view scope_tvm_name(Scope s);  // "global" "shared" "local"

bool is_supported(DType t);
bool is_float(DType t);
bool is_int(DType t);       // signed or unsigned integer (not bool)
bool is_signed_int(DType t);
bool is_unsigned_int(DType t);
/// Width in bits (bool: 8, f16/bf16: 16); 0 for Invalid/Str.
int dtype_bits(DType t);
/// Storage size in bytes.
int dtype_bytes(DType t);

/// §7.3 promotion of two (non-weak) types: int with float gives the float; two floats the wider (f16 with bf16
/// gives f32); two integers of equal signedness the wider, mixed signedness i64; bool takes the other type.
DType promote(DType a, DType b);

}  // namespace steptp::ir
