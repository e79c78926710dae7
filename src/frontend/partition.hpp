// Task extraction (TVM's extract_tasks after FuseOps): splits an imported whole-model task (onnx_import.hpp) into
// subgraph tasks the size of KernelBench level-1/2 problems, deduplicated by structure and shape.
//
// The pass works on the imported LEIR program and its provenance (which top-level nests each ONNX node emitted),
// not on the ONNX proto. One ONNX node is the unit of grouping; its nests always stay together.
//
// Rule (in the field's terms; README "import-onnx --partition" shows it on real models)
//  * Anchor ops: Conv, ConvTranspose, MatMul, Gemm, Einsum (family conv / matmul), Reduce*, ArgMax, ArgMin
//    (reduction), InstanceNormalization, LayerNormalization (norm), MaxPool, AveragePool, GlobalAveragePool,
//    GlobalMaxPool (pool), Softmax, LogSoftmax (softmax), CumSum (scan); an op not in this table is an anchor of
//    family "reduction" when one of its statements reduces, else injective. Every other node is injective
//    (elementwise, broadcast, layout and gather ops; BatchNormalization in inference mode is elementwise).
//  * Groups are formed in node order. An anchor starts a new group, except that a reduction joins its producer's
//    group when that group is anchored by one reduction (a decomposed LayerNorm: mean, then the variance of the
//    centred values, is one task). An injective node joins a producer's group (FuseOps: elementwise consumers of an
//    anchor join its fused group): the producer group whose anchors do the most work (statement executions), on
//    a tie the latest producer's. So conv -> bn -> relu is one task, and a residual add joins the 3x3 conv of its
//    block rather than the 1x1 downsampling conv (which stays a task of its own), and the add after an MLP joins
//    the MLP's matmul rather than the LayerNorm before it. With no producer inside the program it starts an
//    anchorless group.
//    A join that would make the group graph cyclic is skipped (next producer, else a new group).
//  * Attention: a Softmax group whose input comes from a MatMul group and whose output is read by a MatMul group
//    is merged with both (QK^T -> scale/mask -> softmax -> PV is one task, family "attention").
//  * Prologues: an anchorless group whose results are read by exactly one other group and are not graph outputs
//    is merged into that group (a transpose or embedding gather feeding one projection); otherwise it stays a
//    task of family "elementwise".
//  * Known buffers of a task: values read but not written in the group are `input`s, or `param`/`constant` when
//    they are the model's weights (their values go to PartitionTask::params when the import has them; a graph
//    input keeps its declared range); values written in the group and read
//    by another group, graph outputs, and values nobody reads are `output`s; the rest are intermediates. Buffers
//    are renamed A, C, D, ... (LEIR.md §5.1) in known order, then intermediates in order of first occurrence.
//  * Dedup: tasks with equal alpha-canonical program and known signature (ir/canon.hpp) are one task; its
//    `weight` counts the occurrences and its params are those of the first occurrence.
//  * Family: "attention" for merged attention, "elementwise" for anchorless groups, else the family of the first
//    anchor ("norm" for a reduction group that also takes a square root, i.e. a decomposed LayerNorm/RMSNorm/L2
//    norm). The fused epilogue does not change the family: nearly every model task has one (the catalogue's
//    level-2 workloads are labelled "fused", model tasks keep the anchor's family so the splits stay stratified).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "frontend/onnx_import.hpp"

namespace steptp::frontend {

/// One distinct extracted task.
struct PartitionTask {
  ir::Task task;                                      // workload "<model>__<k>", the import's suite; validated
  interp::TensorMap params;                           // values of its param and constant known buffers
  std::string family;                                 // conv, matmul, attention, elementwise, ... (see above)
  std::string anchor;                                 // op type of the first anchor; "" for an anchorless group
  int weight = 1;                                     // occurrences in the model
  std::vector<std::vector<std::string>> occurrences;  // ONNX node names of each occurrence, in node order
  std::size_t statements = 0;                         // statements of the LEIR program
};

struct Partition {
  std::string model;
  std::size_t groups = 0;             // fused groups before dedup
  std::vector<PartitionTask> tasks;   // distinct tasks in order of first occurrence; k = index
};

/// Partitions an import (its task must be the unmodified result of import_onnx*, with provenance). Task names
/// are "<model>__<k>". Every task is validated; throws ir::LeirError if one does not validate (a partitioner
/// bug) and std::runtime_error ("<model>: ...") if the provenance does not cover the program.
Partition partition_import(const OnnxImport& imp, const std::string& model);

/// The family of an anchor op type ("conv", "matmul", "reduction", "norm", "pool", "softmax", "scan",
/// "recurrent", "loss"), or "" when the op is not in the anchor table.
std::string anchor_family(const std::string& op);

}  // namespace steptp::frontend
