// Helpers for ONNX importer tests: tiny models built with the ONNX protobuf classes.
#pragma once
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

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

inline void add_int64_init(onnx::ModelProto& m, const std::string& name, const std::vector<std::int64_t>& vals) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<std::int64_t>(vals.size()));
  for (auto v : vals) t->add_int64_data(v);
}

inline std::string bytes_of(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

}  // namespace steptp::test
