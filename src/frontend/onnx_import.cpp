// ONNX model -> LEIR task (see onnx_import.hpp). Graph walk: initializers and Constant nodes are constants;
// each node is folded (all inputs constant) or lowered by its op family's emitter; the program is printed,
// re-parsed and validated.
#include "frontend/onnx_import.hpp"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/import_error.hpp"
#include "frontend/onnx/onnx_tensor.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/validate.hpp"

namespace steptp::frontend {

using namespace onnx_detail;

namespace {

const OpTable& op_table() {
  static const OpTable t = [] {
    OpTable x;
    register_elementwise_ops(x);
    register_shape_ops(x);
    register_linalg_ops(x);
    register_conv_ops(x);
    register_pool_ops(x);
    register_reduce_ops(x);
    register_norm_ops(x);
    register_split_scatter_ops(x);
    register_resize_ops(x);
    register_rnn_ops(x);
    register_loss_ops(x);
    return x;
  }();
  return t;
}

/// Static dtype and shape of a graph input/output from its ValueInfo.
std::pair<ir::DType, Shape> value_info_type(const onnx::ValueInfoProto& vi, bool need_shape) {
  if (!vi.type().has_tensor_type())
    throw ir::LeirError(kImportGraph, fmt::format("graph value '{}' is not a tensor", vi.name()));
  const auto& tt = vi.type().tensor_type();
  ir::DType dt = onnx_dtype_to_leir(tt.elem_type(), fmt::format("graph value '{}'", vi.name()));
  Shape s;
  if (!tt.has_shape()) {
    if (need_shape) throw ir::LeirError(kImportGraph, fmt::format("graph input '{}' has no static shape", vi.name()));
    return {dt, s};
  }
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value()) {
      if (need_shape)
        throw ir::LeirError(kImportGraph,
                            fmt::format("graph input '{}' has a dynamic dimension '{}'", vi.name(), d.dim_param()));
      return {dt, {}};
    }
    s.push_back(d.dim_value());
  }
  return {dt, s};
}

}  // namespace

OnnxImport import_onnx_bytes(const std::string& bytes, const std::string& label, const std::string& workload,
                             const std::string& suite) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw ir::LeirError(kImportFile, "not a valid ONNX model (protobuf parse failed)", 0, label);
  if (!model.has_graph()) throw ir::LeirError(kImportFile, "the model has no graph", 0, label);
  const auto& g = model.graph();
  Context ctx;
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") ctx.opset = op.version();

  OnnxImport res;
  try {
    std::set<std::string> init_names;
    for (const auto& t : g.initializer()) {
      if (t.name().empty()) throw ir::LeirError(kImportFile, "an initializer has no name");
      init_names.insert(t.name());
      ctx.set_const(t.name(), tensor_from_proto(t), true);
    }
    for (const auto& vi : g.input()) {
      if (init_names.count(vi.name())) continue;
      auto [dt, shape] = value_info_type(vi, true);
      ctx.set_input(vi.name(), dt, shape);
      res.inputs.push_back(vi.name());
    }
    if (g.output_size() == 0) throw ir::LeirError(kImportGraph, "the graph has no outputs");
    for (const auto& vi : g.output()) {
      auto [dt, shape] = value_info_type(vi, false);
      ctx.declare_output(vi.name(), dt, shape, !shape.empty());
      res.outputs.push_back(vi.name());
    }
    const auto& table = op_table();
    for (const auto& np : g.node()) {
      Node n(np);
      if (!np.domain().empty() && np.domain() != "ai.onnx")
        throw ir::LeirError(kImportUnsupportedOp, fmt::format("unsupported ONNX op '{}' of domain '{}' (node '{}')",
                                                              np.op_type(), np.domain(), np.name()));
      if (n.n_out() == 0) n.fail("node has no outputs");
      auto it = table.find(np.op_type());
      if (np.op_type() != "Constant" && try_fold(ctx, n)) continue;
      if (it == table.end())
        throw ir::LeirError(kImportUnsupportedOp,
                            fmt::format("unsupported ONNX op '{}' (node '{}')", np.op_type(), np.name()));
      const std::size_t before = ctx.program().nests.size();
      it->second(ctx, n);
      if (ctx.program().nests.size() > before)
        res.provenance.push_back({np.name(), np.op_type(), before, ctx.program().nests.size()});
    }
    std::set<std::string> finished;
    for (const auto& name : res.outputs) {  // one call per output: each copy nest gets its own provenance entry
      if (!finished.insert(name).second) continue;
      const std::size_t before = ctx.program().nests.size();
      ctx.finish({name});
      if (ctx.program().nests.size() > before)
        res.provenance.push_back({fmt::format("graph output '{}'", name), "Identity", before,
                                  ctx.program().nests.size()});
    }
    // Check the declared output shapes against the computed ones.
    auto known = ctx.known();
    std::size_t oi = 0;
    for (const auto& vi : g.output()) {
      auto [dt, shape] = value_info_type(vi, false);
      while (oi < known.size() && known[oi].role != ir::Role::Output) ++oi;
      if (oi < known.size() && !shape.empty() && known[oi].shape != shape)
        throw ir::LeirError(kImportGraph,
                            fmt::format("graph output '{}': computed shape [{}] differs from declared [{}]", vi.name(),
                                        fmt::join(known[oi].shape, ","), fmt::join(shape, ",")));
      ++oi;
    }
  } catch (const ir::LeirError& e) {  // an import code (E6xx) without a location: the model is the location
    if (!e.diag().path.empty() || e.diag().offset != 0) throw;
    throw ir::LeirError(e.code(), e.diag().message, 0, label);
  } catch (const std::runtime_error& e) {  // a converter's or the constant folder's error: the node cannot be converted
    throw ir::LeirError(kImportNode, e.what(), 0, label);
  }

  res.task.workload = workload;
  res.task.suite = suite;
  res.task.known = ctx.known();
  // Print and re-parse so offsets refer to the canonical text, then validate.
  res.task.program = ir::parse_program(ir::print_program(ctx.program()));
  if (res.task.program.nests.size() != ctx.program().nests.size())  // provenance indexes top-level nests
    throw std::logic_error(fmt::format("{}: re-parsing changed the number of top-level nests", label));
  ir::validate_or_throw(res.task);
  // Keep only the values of buffers the task lists (constants materialised then unused cannot occur, but be exact).
  for (const auto& k : res.task.known)
    if (k.role == ir::Role::Param || k.role == ir::Role::Constant) res.params[k.name] = ctx.params().at(k.name);
  return res;
}

OnnxImport import_onnx(const std::string& model_path) {
  namespace fs = std::filesystem;
  fs::path p(model_path);
  std::string bytes;
  bytes = ir::read_file(model_path, ir::kMaxModelReadBytes);  // E108 at the path when missing or unreadable
  fs::path dir = p.parent_path();
  std::string workload = p.stem().string();
  std::string suite = "onnx";
  if (p.filename() == "model.onnx" && !dir.filename().empty()) {
    workload = dir.filename().string();
    if (!dir.parent_path().filename().empty()) suite = dir.parent_path().filename().string();
  }
  return import_onnx_bytes(bytes, model_path, workload, suite);
}

}  // namespace steptp::frontend
