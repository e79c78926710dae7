// ONNX TensorProto <-> interp::Tensor conversion (ONNX IR spec, onnx.proto TensorProto) and element-value
// conversion to a LEIR dtype (LEIR.md §8.3). Used by the ONNX importer (initializers, Constant nodes) and by
// `import-onnx --check` to read the backend test data (test_data_set_0/input_*.pb, output_*.pb).
#pragma once
#include <cstdint>
#include <string>

#include "interp/interpreter.hpp"

namespace onnx {
class TensorProto;
}

namespace steptp::frontend {

/// Maps an ONNX TensorProto.DataType code to a LEIR dtype. Supported: FLOAT, DOUBLE, FLOAT16, BFLOAT16,
/// INT8/16/32/64, UINT8/16/32/64, BOOL. Throws std::runtime_error naming `what` for any other code
/// (STRING, COMPLEX*, FLOAT8*, UNDEFINED, unknown).
ir::DType onnx_dtype_to_leir(int onnx_type, const std::string& what);

/// Converts a TensorProto to a dense row-major Tensor (values held as double). Reads raw_data (little-endian)
/// or the typed fields (float_data, double_data, int32_data (also f16/bf16 bits, int8/16, uint8/16, bool),
/// int64_data, uint64_data). Throws std::runtime_error on: unsupported dtype, negative dims, element count over
/// 2^31, external data, or a payload whose size does not match the dims.
interp::Tensor tensor_from_proto(const onnx::TensorProto& t);

/// Reads a serialized TensorProto file (.pb) and converts it. Throws std::runtime_error (unreadable file,
/// protobuf parse failure, or any error of tensor_from_proto), the message naming the path.
interp::Tensor read_tensor_pb(const std::string& path);

/// Rounds/wraps a value to what dtype `t` can hold (LEIR.md §8.3): f32 and f16/bf16 round to nearest even,
/// integers truncate toward zero and wrap to the width, bool tests != 0. NaN/inf are kept for floats; for
/// integers they convert to 0; 64-bit integers saturate (INT64_MAX sentinels survive).
double convert_to_dtype(double v, ir::DType t);

/// IEEE binary16 and bfloat16 bit conversions (round to nearest even).
std::uint16_t float_to_half_bits(float f);
float half_bits_to_float(std::uint16_t h);
std::uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(std::uint16_t h);

/// Encodes `v` (already converted) of dtype `t` as dtype_bytes(t) little-endian bytes appended to `out`.
void append_le(std::string& out, double v, ir::DType t);
/// Decodes one element of dtype `t` from `p` (dtype_bytes(t) little-endian bytes).
double decode_le(const unsigned char* p, ir::DType t);

}  // namespace steptp::frontend
