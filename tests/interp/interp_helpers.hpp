// Helpers for the interpreter and equivalence tests: build tasks from LEIR text and run them on given inputs.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/parser.hpp"
#include "ir/task.hpp"

namespace steptp::interp::testing {

inline ir::KnownBuffer kb(std::string name, ir::Role role, std::vector<std::int64_t> shape,
                          ir::DType dt = ir::DType::F32) {
  ir::KnownBuffer k;
  k.name = std::move(name);
  k.role = role;
  k.dtype = dt;
  k.shape = std::move(shape);
  return k;
}
inline ir::KnownBuffer in(std::string n, std::vector<std::int64_t> s, ir::DType dt = ir::DType::F32) {
  return kb(std::move(n), ir::Role::Input, std::move(s), dt);
}
inline ir::KnownBuffer out(std::string n, std::vector<std::int64_t> s, ir::DType dt = ir::DType::F32) {
  return kb(std::move(n), ir::Role::Output, std::move(s), dt);
}

inline ir::Task make_task(const std::string& leir, std::vector<ir::KnownBuffer> known) {
  ir::Task t;
  t.workload = "test";
  t.suite = "test";
  t.known = std::move(known);
  t.program = ir::parse_program(leir);
  return t;
}

inline Tensor tensor(std::vector<std::int64_t> shape, std::vector<double> data, ir::DType dt = ir::DType::F32) {
  Tensor t;
  t.dtype = dt;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

/// Runs `t` on `inputs` and returns the outputs.
inline TensorMap run(const ir::Task& t, const TensorMap& inputs, RunOptions opt = {}) {
  Interpreter in(t);
  return in.run(inputs, opt);
}

/// The error code raised by running `t` (empty if it runs).
inline std::string run_error(const ir::Task& t, const TensorMap& inputs, RunOptions opt = {}, std::string* msg = nullptr) {
  try {
    Interpreter in(t);
    in.run(inputs, opt);
  } catch (const ir::LeirError& e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  return "";
}

inline void expect_data(const Tensor& t, const std::vector<double>& want, double tol = 0) {
  ASSERT_EQ(t.data.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (tol == 0) EXPECT_EQ(t.data[k], want[k]) << "element " << k;
    else EXPECT_NEAR(t.data[k], want[k], tol) << "element " << k;
  }
}

}  // namespace steptp::interp::testing
