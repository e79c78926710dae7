// ONNX importer: turns an ONNX model (static shapes) into a LEIR task whose known buffers are the graph inputs,
// the graph outputs and the model's weights, plus the weight values.
//
// Contract
//  * Graph inputs (those that are not initializers) become `input` known buffers, in graph order; graph outputs
//    become `output` known buffers, in graph order. Known names are fresh LEIR names (LEIR.md §5.1); the ONNX
//    names are kept in OnnxImport::inputs / outputs (same order as the graph).
//  * Initializers that the program reads become `param` known buffers; other folded constant tensors that the
//    program reads (non-splat Constant-node values, values computed from constants) become `constant` known
//    buffers. Their values are in OnnxImport::params, keyed by buffer name. Constants whose elements are all
//    equal (and that are not initializers) are inlined as literals. Shape-computing subgraphs (Shape, Gather,
//    Unsqueeze, Concat, ConstantOfShape, ... on constants) are folded at import time.
//  * Each ONNX node becomes one or more top-level nests following the reference conventions (one op per nest;
//    softmax = max nest, sum-exp nest, divide nest; padded conv = if_then_else copy + reduction; norms as
//    mean/var nests). The first output dimension of extent in [2, 1024] is bound to `tx` (LEIR.md §10.3
//    threadIdx.x limit); all other loops are `L`. The result is printed, re-parsed and validated.
//  * Op-specific forms: Split is one copy nest per output (folded on constants, like ScatterND). Resize/Upsample
//    (nearest, linear) need constant scales/sizes; their source indices and linear weights become `constant`
//    tables read by one gather nest. LSTM/GRU are unrolled over the sequence: per direction one input-projection
//    nest, then per time step a recurrent reduction nest and element-wise state nests. ScatterND on non-constant
//    data needs constant indices. SoftmaxCrossEntropyLoss/NegativeLogLikelihoodLoss gather the target's
//    log-probability per element and reduce into a scalar (sum, mean) or not (none).
//  * Provenance: OnnxImport::provenance lists, per ONNX node that emitted nests, its name, op type and the range of
//    top-level nests it emitted (in node order, covering the program). Task extraction (partition.hpp,
//    `import-onnx --partition`) groups nodes by it into fused subgraph tasks; the whole-model task stays the default.
//  * Errors: ir::LeirError (a std::runtime_error; one line) with a stable import code (onnx/import_error.hpp) and
//    the model's label or path as location: E108 unreadable file; E601 corrupt model or tensor data; E602
//    unsupported op: "LEIR-E602 at m.onnx: unsupported ONNX op 'Foo' (node 'name')"; E603 a node that cannot be
//    converted, naming op and node (e.g. Resize cubic, tf_crop_and_resize, antialias, exclude_outside; LSTM/GRU
//    non-default activations, clip, sequence_lens shorter than the sequence); E604 dynamic shapes, unsupported
//    element types and other graph-interface faults. A validator code (E2xx) if the generated program fails
//    validation (an importer bug).
#pragma once
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::frontend {

/// Provenance of top-level nests: ONNX node `name` (op type `op`) emitted task.program.nests[begin, end).
/// Nodes folded at import time or turned into aliases emit no nest and get no entry. The copies of graph outputs
/// that no node writes (emitted at the end) get one entry each, named "graph output '<onnx name>'" with op
/// "Identity" (a graph output that is also a graph input or another output).
struct NodeNests {
  std::string name;
  std::string op;
  std::size_t begin = 0;
  std::size_t end = 0;
};

struct OnnxImport {
  ir::Task task;
  interp::TensorMap params;          // values of every constant and param known buffer, by buffer name
  std::vector<std::string> inputs;   // ONNX names of the graph inputs, in known order of the `input` buffers
  std::vector<std::string> outputs;  // ONNX names of the graph outputs, in known order of the `output` buffers
  std::vector<NodeNests> provenance; // in node order; the ranges are disjoint, ascending and cover every nest
};

/// Imports an ONNX model file. `workload`/`suite` label the task (defaults: the model's directory name, e.g.
/// "19_ReLU", and its parent directory name, e.g. "level1"). Throws std::runtime_error / ir::LeirError.
OnnxImport import_onnx(const std::string& model_path);

/// Same, from serialized ModelProto bytes (used by tests). `label` names the model in errors.
OnnxImport import_onnx_bytes(const std::string& bytes, const std::string& label, const std::string& workload = "onnx",
                             const std::string& suite = "onnx");

}  // namespace steptp::frontend
