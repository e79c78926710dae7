// Random generator of valid LEIR tasks (issue #16 part 2). Deterministic: the same seed and options give the same
// task on every machine (core::Rng = std::mt19937_64 with portable draws). Every generated task is valid by
// construction (ir::validate_or_throw accepts it, and it runs in the checked interpreter without E301-E307): a task
// the validator rejects is a generator bug, reported by the differential driver as check "generate".
//
// Coverage: all loop kinds L P V U B (B with bound names, one per hardware axis and top-level nest), nested nests and
// tail form, plain maps, reductions with each initialiser (sum and difference from 0, product from 1, max from -inf,
// min from +inf, `e/X` from 1), continuing updates without initialiser (§8.4 rule 2), split writes of one output
// over two nests, intermediates in g/s/l scopes (s/l confined to one B nest, §8.5), gathers through integer index
// buffers (also nested and wrapped by `%`), guarded padding reads under if_then_else, comparisons and chains, & and
// |, floor `//` and `%` on integers, the intrinsics exp/log/sqrt/abs/erf/max/min and `**`, and every supported dtype
// (f16 bf16 f32 f64, i8..i64, u8..u64, bool) in known buffers and intermediates. Shapes are small: ranks 0..3, extents
// 1..max_extent.
//
// The generated AST is in *parsed form* (parsed_form.hpp): parentheses the precedence needs are explicit Group nodes
// and literals carry their spelling, exactly as ir::parse_program builds them, so parse(print(t)) == t must hold.
#pragma once
#include <cstdint>

#include "fuzz/parsed_form.hpp"
#include "ir/task.hpp"

namespace steptp::fuzz {

struct GenOptions {
  int max_extent = 6;      // loop extents and known-buffer extents are in [1, max_extent]
  int max_rank = 3;        // ranks of buffers are in [0, max_rank]
  int max_steps = 4;       // top-level computation steps (each one or two top-level nests)
  int max_depth = 3;       // expression depth
  int max_reduce = 12;     // product of the reduction extents of one statement
};

/// The task of `seed`. workload is "fuzz_<seed>", suite "fuzz". Throws nothing for valid options.
ir::Task generate_task(std::uint64_t seed, const GenOptions& opt = {});

}  // namespace steptp::fuzz
