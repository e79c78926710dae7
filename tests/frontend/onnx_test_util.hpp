// Helpers for ONNX importer tests: tiny models built with the ONNX protobuf classes.
#pragma once
#include <onnx/onnx_pb.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "frontend/onnx_import.hpp"
#include "interp/interpreter.hpp"

namespace steptp::test {

inline void add_value_info(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<std::int64_t>& shape,
                           int elem = onnx::TensorProto::FLOAT) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* sh = tt->mutable_shape();
  for (auto d : shape) sh->add_dim()->set_dim_value(d);
}

/// A one-graph model at opset 13 with the given inputs/outputs; nodes are added by the caller.
inline onnx::ModelProto make_model(const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& inputs,
                                   const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& outputs) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("test");
  for (auto& [n, s] : inputs) add_value_info(g->add_input(), n, s);
  for (auto& [n, s] : outputs) add_value_info(g->add_output(), n, s);
  return m;
}

inline onnx::NodeProto* add_node(onnx::ModelProto& m, const std::string& op, const std::vector<std::string>& in,
                                 const std::vector<std::string>& out, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? "/" + op : name);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}

inline void add_float_init(onnx::ModelProto& m, const std::string& name, const std::vector<std::int64_t>& dims,
                           const std::vector<float>& vals) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  for (auto v : vals) t->add_float_data(v);
}

/// An INT64 initializer of shape `dims` (default: 1-D of vals.size()).
inline void add_int64_init(onnx::ModelProto& m, const std::string& name, const std::vector<std::int64_t>& vals,
                           const std::vector<std::int64_t>& dims = {}) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  if (dims.empty()) t->add_dims(static_cast<std::int64_t>(vals.size()));
  for (auto d : dims) t->add_dims(d);
  for (auto v : vals) t->add_int64_data(v);
}

inline std::string bytes_of(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

inline onnx::AttributeProto* add_attr(onnx::NodeProto* n, const std::string& name, onnx::AttributeProto::AttributeType t) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(t);
  return a;
}
inline void set_int(onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  add_attr(n, name, onnx::AttributeProto::INT)->set_i(v);
}
inline void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* a = add_attr(n, name, onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}
inline void set_floats(onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
  auto* a = add_attr(n, name, onnx::AttributeProto::FLOATS);
  for (auto x : v) a->add_floats(x);
}
inline void set_string(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  add_attr(n, name, onnx::AttributeProto::STRING)->set_s(v);
}
inline void set_strings(onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = add_attr(n, name, onnx::AttributeProto::STRINGS);
  for (auto& x : v) a->add_strings(x);
}

/// The message of the std::runtime_error that importing `m` (label "test") throws, "" when it imports.
inline std::string import_error(const onnx::ModelProto& m) {
  try {
    frontend::import_onnx_bytes(bytes_of(m), "test");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

/// Sets the element type of graph input `i` (make_model declares float inputs).
inline void set_input_type(onnx::ModelProto& m, int i, int elem) {
  m.mutable_graph()->mutable_input(i)->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
}

/// Imports `m`, runs it in the interpreter with `inputs` (graph input order) and returns every graph output's
/// values, in graph output order.
inline std::vector<std::vector<double>> run_all(const onnx::ModelProto& m, const std::vector<std::vector<double>>& inputs) {
  auto imp = frontend::import_onnx_bytes(bytes_of(m), "test");
  interp::TensorMap in = imp.params;
  std::vector<std::vector<double>> res;
  std::size_t i = 0;
  for (const auto& k : imp.task.known)
    if (k.role == ir::Role::Input) in[k.name] = {k.dtype, k.shape, inputs.at(i++)};
  auto out = interp::Interpreter(imp.task).run(in);
  for (const auto& k : imp.task.known)
    if (k.role == ir::Role::Output) res.push_back(out.at(k.name).data);
  return res;
}

}  // namespace steptp::test
