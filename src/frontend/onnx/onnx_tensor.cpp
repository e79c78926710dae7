#include "frontend/onnx/onnx_tensor.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/onnx/import_error.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"

namespace steptp::frontend {

using ir::DType;

ir::DType onnx_dtype_to_leir(int onnx_type, const std::string& what) {
  using TP = onnx::TensorProto;
  switch (onnx_type) {
    case TP::FLOAT: return DType::F32;
    case TP::DOUBLE: return DType::F64;
    case TP::FLOAT16: return DType::F16;
    case TP::BFLOAT16: return DType::BF16;
    case TP::INT8: return DType::I8;
    case TP::INT16: return DType::I16;
    case TP::INT32: return DType::I32;
    case TP::INT64: return DType::I64;
    case TP::UINT8: return DType::U8;
    case TP::UINT16: return DType::U16;
    case TP::UINT32: return DType::U32;
    case TP::UINT64: return DType::U64;
    case TP::BOOL: return DType::Bool;
    default: break;
  }
  throw ir::LeirError(kImportGraph, fmt::format("{}: unsupported ONNX element type {}", what, onnx_type));
}

std::uint16_t float_to_half_bits(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t exp = (x >> 23) & 0xffu;
  std::uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (man ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);
    man |= 0x800000u;
    int shift = 14 - e;
    std::uint32_t half = man >> shift;
    std::uint32_t rem = man & ((1u << shift) - 1);
    std::uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  std::uint32_t rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

float half_bits_to_float(std::uint16_t h) {
  std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t man = h & 0x3ffu;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  std::uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<std::uint16_t>(x >> 16);
}

float bf16_bits_to_float(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

double convert_to_dtype(double v, DType t) {
  switch (t) {
    case DType::F64: return v;
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::F16: return half_bits_to_float(float_to_half_bits(static_cast<float>(v)));
    case DType::BF16: return bf16_bits_to_float(float_to_bf16_bits(static_cast<float>(v)));
    case DType::Bool: return v != 0.0 ? 1.0 : 0.0;
    default: break;
  }
  if (!std::isfinite(v)) return 0.0;
  double tr = std::trunc(v);
  const int bits = ir::dtype_bits(t);
  if (bits >= 64) {
    // Saturate: INT64_MAX/MIN sentinels (e.g. Slice ends) must survive the trip through double.
    if (ir::is_signed_int(t)) return std::clamp(tr, -9.2233720368547758e18, 9.2233720368547758e18);
    return std::clamp(tr, 0.0, 1.8446744073709552e19);
  }
  // Wrap to the width (two's complement).
  const double mod = std::ldexp(1.0, bits);
  double r = std::fmod(tr, mod);
  if (r < 0) r += mod;
  if (ir::is_signed_int(t) && r >= mod / 2) r -= mod;
  return r;
}

void append_le(std::string& out, double v, DType t) {
  unsigned char b[8] = {};
  int n = ir::dtype_bytes(t);
  auto put = [&](std::uint64_t bits) {
    for (int i = 0; i < n; ++i) b[i] = static_cast<unsigned char>((bits >> (8 * i)) & 0xffu);
  };
  switch (t) {
    case DType::F64: put(std::bit_cast<std::uint64_t>(v)); break;
    case DType::F32: put(std::bit_cast<std::uint32_t>(static_cast<float>(v))); break;
    case DType::F16: put(float_to_half_bits(static_cast<float>(v))); break;
    case DType::BF16: put(float_to_bf16_bits(static_cast<float>(v))); break;
    case DType::Bool: put(v != 0.0 ? 1u : 0u); break;
    default:
      if (ir::is_signed_int(t)) {
        double c = convert_to_dtype(v, t);
        put(c >= 9.2233720368547758e18 ? static_cast<std::uint64_t>(INT64_MAX)
                                        : static_cast<std::uint64_t>(static_cast<std::int64_t>(c)));
      } else {
        double c = convert_to_dtype(v, t);
        put(c >= 1.8446744073709552e19 ? UINT64_MAX : static_cast<std::uint64_t>(c));
      }
  }
  out.append(reinterpret_cast<const char*>(b), static_cast<std::size_t>(n));
}

double decode_le(const unsigned char* p, DType t) {
  int n = ir::dtype_bytes(t);
  std::uint64_t bits = 0;
  for (int i = 0; i < n; ++i) bits |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  switch (t) {
    case DType::F64: return std::bit_cast<double>(bits);
    case DType::F32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    case DType::F16: return half_bits_to_float(static_cast<std::uint16_t>(bits));
    case DType::BF16: return bf16_bits_to_float(static_cast<std::uint16_t>(bits));
    case DType::Bool: return bits != 0 ? 1.0 : 0.0;
    default: break;
  }
  if (ir::is_signed_int(t)) {
    // sign-extend from n bytes
    if (n < 8 && (bits >> (8 * n - 1)) & 1u) bits |= ~std::uint64_t{0} << (8 * n);
    return static_cast<double>(static_cast<std::int64_t>(bits));
  }
  return static_cast<double>(bits);
}

interp::Tensor tensor_from_proto(const onnx::TensorProto& t) {
  const std::string what = t.name().empty() ? std::string("tensor") : fmt::format("tensor '{}'", t.name());
  interp::Tensor out;
  out.dtype = onnx_dtype_to_leir(t.data_type(), what);
  std::int64_t n = 1;
  for (auto d : t.dims()) {
    if (d < 0) throw ir::LeirError(kImportFile, fmt::format("{}: negative dimension {}", what, d));
    if (d > 0 && n > (std::int64_t{1} << 31) / d)
      throw ir::LeirError(kImportFile, fmt::format("{}: more than 2^31 elements", what));
    n *= d;
    out.shape.push_back(d);
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0)
    throw ir::LeirError(kImportFile, fmt::format("{}: external data is not supported", what));
  const auto count = static_cast<std::size_t>(n);
  const DType dt = out.dtype;
  auto mismatch = [&](std::size_t got) {
    return ir::LeirError(kImportFile, fmt::format("{}: payload holds {} elements but dims {} need {}", what, got,
                                                  fmt::join(out.shape, "x"), n));
  };
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    const auto sz = static_cast<std::size_t>(ir::dtype_bytes(dt));
    if (raw.size() != count * sz) throw mismatch(raw.size() / sz);
    out.data.resize(count);
    auto p = reinterpret_cast<const unsigned char*>(raw.data());
    for (std::size_t i = 0; i < count; ++i) out.data[i] = decode_le(p + i * sz, dt);
    return out;
  }
  switch (dt) {
    case DType::F32:
      if (static_cast<std::size_t>(t.float_data_size()) != count) throw mismatch(t.float_data_size());
      out.data.resize(count);
      for (std::size_t i = 0; i < count; ++i) out.data[i] = t.float_data(static_cast<int>(i));
      break;
    case DType::F64:
      if (static_cast<std::size_t>(t.double_data_size()) != count) throw mismatch(t.double_data_size());
      out.data.resize(count);
      for (std::size_t i = 0; i < count; ++i) out.data[i] = t.double_data(static_cast<int>(i));
      break;
    case DType::I64:
      if (static_cast<std::size_t>(t.int64_data_size()) != count) throw mismatch(t.int64_data_size());
      out.data.resize(count);
      for (std::size_t i = 0; i < count; ++i) out.data[i] = static_cast<double>(t.int64_data(static_cast<int>(i)));
      break;
    case DType::U32:
    case DType::U64:
      if (static_cast<std::size_t>(t.uint64_data_size()) != count) throw mismatch(t.uint64_data_size());
      out.data.resize(count);
      for (std::size_t i = 0; i < count; ++i) out.data[i] = static_cast<double>(t.uint64_data(static_cast<int>(i)));
      break;
    default:  // int32_data: i8/i16/i32/u8/u16/bool values, f16/bf16 bit patterns
      if (static_cast<std::size_t>(t.int32_data_size()) != count) throw mismatch(t.int32_data_size());
      out.data.resize(count);
      for (std::size_t i = 0; i < count; ++i) {
        std::int32_t v = t.int32_data(static_cast<int>(i));
        if (dt == DType::F16) out.data[i] = half_bits_to_float(static_cast<std::uint16_t>(v));
        else if (dt == DType::BF16) out.data[i] = bf16_bits_to_float(static_cast<std::uint16_t>(v));
        else out.data[i] = convert_to_dtype(static_cast<double>(v), dt);
      }
  }
  return out;
}

interp::Tensor read_tensor_pb(const std::string& path) {
  onnx::TensorProto t;
  if (!t.ParseFromString(ir::read_file(path, ir::kMaxModelReadBytes)))  // E108 when unreadable
    throw ir::LeirError(kImportFile, "not a valid ONNX TensorProto", 0, path);
  try {
    return tensor_from_proto(t);
  } catch (const ir::LeirError& e) {
    throw ir::LeirError(e.code(), e.diag().message, 0, path);
  }
}

}  // namespace steptp::frontend
