// Stable codes of ONNX import errors: a sixth stage, "import", added to the table of LEIR.md §12 (issue #16; the
// spec lists lex/parse E0xx, task E1xx, validate E2xx, run E3xx, lower E4xx and equiv E5xx only). Each is thrown as
// an ir::LeirError whose location (Diagnostic::path) is the model's label or path, and whose message names the
// graph value or the node ("Conv node 'conv1': ..."), so `import-onnx` and `generate --onnx` print one line
// "LEIR-E602 at model.onnx: unsupported ONNX op 'Foo' (node 'n')" and exit 2. An unreadable file is E108.
#pragma once
#include "base/error_codes.hpp"

namespace steptp::frontend {

/// E601: the model or a tensor file is corrupt — not an ONNX protobuf, no graph, an initializer without a name, a
/// tensor payload that disagrees with its dims, a negative dimension, over 2^31 elements, external data.
inline constexpr Code kImportFile = Code::E601;
/// E602: an op the importer does not convert (op type, domain and node named).
inline constexpr Code kImportUnsupportedOp = Code::E602;
/// E603: a supported op whose node cannot be converted — an unsupported attribute value, a missing input, a shape
/// the op rejects, a constant that cannot be folded (e.g. `Resize node 'rs': unsupported antialias != 0`).
inline constexpr Code kImportNode = Code::E603;
/// E604: the graph's interface — a non-tensor value, an input without a static shape or with a dynamic or
/// out-of-range dimension, an unsupported element type, no outputs, a declared output shape that differs.
inline constexpr Code kImportGraph = Code::E604;
/// E605: `import-onnx --check` test data — a missing input_k.pb, or a tensor whose shape differs from the graph's.
inline constexpr Code kImportTestData = Code::E605;

}  // namespace steptp::frontend
