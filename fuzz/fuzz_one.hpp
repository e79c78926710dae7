// One fuzz iteration, shared by the libFuzzer target (fuzz_parser.cpp) and the regression test over fuzz/corpus/
// (tests/fuzz/test_fuzz_corpus.cpp): parse the bytes as a LEIR program, wrap it into tasks (a fixed known list and
// one inferred from the program) and analyze them; a valid one must round-trip through the printer and run (within
// a statement budget) to outputs or an E3xx error. Must never crash, leak or hit UB on any input; LeirError is the
// only exception the parser may throw.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"

#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::fuzz {

/// Known list inferred from the program: buffers never written become inputs (superscript dtype if supported,
/// every extent 4); the target of the last statement becomes the output, with the shape a first analysis infers.
inline std::vector<ir::KnownBuffer> infer_known(const ir::Program& p) {
  ir::Task probe;
  probe.program = p;
  ir::Analysis a = ir::analyze(probe);
  std::string last;
  ir::for_each_stmt(p, [&](const ir::Stmt& s, const std::vector<const ir::Loop*>&, std::size_t) { last = s.lhs.text; });
  std::vector<ir::KnownBuffer> inputs, outputs;
  std::vector<std::string> written;
  ir::for_each_stmt(p, [&](const ir::Stmt& s, const std::vector<const ir::Loop*>&, std::size_t) {
    written.push_back(s.lhs.text);
  });
  for (const auto& b : a.buffers) {
    const bool is_written = std::find(written.begin(), written.end(), b.name) != written.end();
    ir::KnownBuffer k;
    k.name = b.name;
    k.dtype = ir::is_supported(b.dtype) ? b.dtype : ir::DType::F32;
    if (!is_written) {
      k.role = ir::Role::Input;
      k.shape.assign(b.shape.size(), 4);
      inputs.push_back(k);
    } else if (b.name == last) {
      k.role = ir::Role::Output;
      k.shape = b.shape;
      for (auto& e : k.shape) e = std::max<std::int64_t>(1, e);
      outputs.push_back(k);
    }
  }
  inputs.insert(inputs.end(), outputs.begin(), outputs.end());
  return inputs;
}

/// Returns the number of errors found over both tasks (for tests); 0 if the text does not parse.
inline int fuzz_one(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ir::Program p;
  try {
    p = ir::parse_program(text);
  } catch (const ir::LeirError&) {
    return 0;
  }
  int errors = 0;
  ir::Task fixed;
  fixed.known = {{"A", ir::Role::Input, ir::DType::F32, {4, 4}}, {"C", ir::Role::Output, ir::DType::F32, {4, 4}}};
  fixed.program = p;
  ir::Task inferred;
  inferred.known = infer_known(p);
  inferred.program = p;
  for (ir::Task* t : {&fixed, &inferred}) {
    ir::Analysis a = ir::analyze(*t);
    for (const auto& d : a.diags) {
      errors += !d.is_warning();
      (void)d.full();
    }
    try {
      ir::validate_or_throw(*t);
    } catch (const ir::LeirError&) {
      continue;
    }
    // A valid program: the canonical text re-parses to the same tree, and a run within a small statement budget
    // ends in outputs or a LeirError (E3xx), never a crash.
    const std::string canon = ir::print_program(t->program);
    if (!(ir::parse_program(canon) == t->program)) std::abort();
    try {
      interp::check_step_budget(*t, 100'000);
      interp::check_memory_budget(*t, std::uint64_t{64} << 20);
      interp::Interpreter in(*t);
      interp::RunOptions ro;
      ro.max_steps = 100'000;
      (void)in.run(equiv::make_inputs(in, 0, equiv::Distribution::Normal), ro);
    } catch (const ir::LeirError&) {
    } catch (const std::invalid_argument&) {  // inferred inputs whose shape the analysis could not fix
    }
  }
  return errors;
}

}  // namespace steptp::fuzz
