// Helper for task-extraction tests: runs an extracted task in the interpreter on its own weights.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "frontend/partition.hpp"
#include "interp/interpreter.hpp"

namespace steptp::test {

/// Runs extracted task `t` on its params plus `inputs` (one per `input` buffer, in known order; missing ones are
/// filled with sin(0.7 i + k) for buffer k). Returns the outputs in known order.
inline std::vector<interp::Tensor> run_extracted(const frontend::PartitionTask& t,
                                                 const std::vector<std::vector<double>>& inputs = {}) {
  interp::TensorMap in = t.params;
  std::size_t k = 0;
  for (const auto& kb : t.task.known)
    if (kb.role == ir::Role::Input) {
      std::vector<double> v;
      if (k < inputs.size()) v = inputs[k];
      else
        for (std::int64_t i = 0; i < kb.numel(); ++i) v.push_back(std::sin(0.7 * double(i) + double(k)));
      in[kb.name] = interp::Tensor{kb.dtype, kb.shape, std::move(v)};
      ++k;
    }
  auto out = interp::Interpreter(t.task).run(in);
  std::vector<interp::Tensor> res;
  for (const auto& kb : t.task.known)
    if (kb.role == ir::Role::Output) res.push_back(out.at(kb.name));
  return res;
}

}  // namespace steptp::test
