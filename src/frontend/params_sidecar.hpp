// Parameter sidecar: the values of a task's `param` and `constant` known buffers, stored beside the task file
// (TASK.json -> TASK.params.bin) so that imported tasks run with the model's real weights.
//
// Binary format, version 1 (all integers little-endian):
//   magic    8 bytes  "STEPTPPB"
//   version  u32      1
//   count    u32      number of tensors
//   count times:
//     name_len u32, name (name_len bytes, ASCII, a LEIR buffer name)
//     dtype_len u32, dtype (dtype_len bytes, the LEIR spelling, e.g. "f32"; LEIR.md §6 supported types)
//     rank u32, dims (rank x i64, each in [1, 2^31))
//     nbytes u64 = numel * dtype_bytes, then the elements row-major in the dtype's little-endian storage format
//       (IEEE binary16/bfloat16/binary32/binary64, two's complement integers, bool as one byte 0/1)
//   nothing after the last tensor.
// Tensors are written in name order (std::map order), so equal maps give byte-identical files.
#pragma once
#include <string>

#include "interp/interpreter.hpp"

namespace steptp::frontend {

/// Serialises `params` (values converted to each tensor's dtype). Throws std::runtime_error if a tensor's data
/// size does not match its shape or its dtype is unsupported.
std::string encode_params_sidecar(const interp::TensorMap& params);
/// Parses sidecar bytes. Throws std::runtime_error ("params sidecar <label>: <reason>") on any corruption: bad
/// magic or version, truncation, lengths past the end, unknown dtype, bad dims, size mismatch, duplicate names,
/// trailing bytes.
interp::TensorMap decode_params_sidecar(const std::string& bytes, const std::string& label = "<memory>");

/// Writes the sidecar atomically (ir::write_file_atomic). Throws std::runtime_error.
void write_params_sidecar(const std::string& path, const interp::TensorMap& params);
/// Reads a sidecar file. Throws std::runtime_error (unreadable or corrupt; the message names the path).
interp::TensorMap read_params_sidecar(const std::string& path);

/// The sidecar path for a task file: "x/TASK.json" -> "x/TASK.params.bin" (".jsonl" likewise; other names get
/// ".params.bin" appended).
std::string params_sidecar_path(const std::string& task_path);

}  // namespace steptp::frontend
