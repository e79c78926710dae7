// The register-block sketch of the cost policy (a steptp addition to DATASET.md §9.3): a multi-step plan, made of
// ordinary legal strategy candidates, that turns an accumulation nest into a register-blocked kernel. It is the
// "multi-level tiling with a local write cache" sketch of TVM's MetaSchedule (Shao et al., NeurIPS 2022) and
// Ansor (Zheng et al., OSDI 2020), spelled in Step-TP steps:
//
//   (layout_transformation of a transposed operand, see below, and loop_tiling of that copy into 16 x 16 tiles,)
//   loop_reorder swaps to the order others, r, reductions, v (i-k-j for a GEMM: the gain comes first),
//   loop_split of the block-row loop r and of the block-column loop v (R rows, V columns; when r is a B loop, which
//   must stay outside the cache's attach depth, the R rows are the outer part of its split, n/R apart),
//   the loop_reorder swaps that put the tile loops outside the reductions and the R x V block inside them,
//   cache_read_write (write, scope l, attached just outside the reduction loops: the block accumulates locally),
//   loop_unrolling of the block rows (the compiler then keeps the R x V accumulators in registers).
//
// The GEMM `D_{tx,a} += A_{tx,c} * C_{c,a}` (512^3) becomes, with R = 8 and V = 32, the 1.5 ms kernel that the
// one-step ranking never reaches: the steps between i-k-j and the block gain nothing in any model, so a one-step
// policy (and the loop_reorder lookahead) ranks them below steps that do. v is the spatial loop of the output's last
// (unit-stride) subscript entry; r is any other spatial loop of the output (a GEMM's rows; a convolution's output
// channels, whose block shares each loaded input vector, or its output rows, which share each weight): the model
// picks. A nest qualifies when its body is one statement whose left-hand side misses at least one header loop (a
// reduction). A read that takes v in a subscript entry other than its last (a transposed operand, x @ W^T: the
// columns would be loaded with a stride) is first copied transposed by a layout_transformation when it is the only
// such read and has two entries (the plan's first step; the GEMM becomes the next nest), else the nest does not
// qualify. Each step is a candidate built directly and applied (the strategy re-checks the site and
// the legality of that one candidate; enumerating every loop_reorder of a 7-loop convolution judged 21 swaps per
// step, some with isl), so a step that is not legal ends that plan.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "strategies/registry.hpp"

namespace steptp::policy::cost {

/// One step of a plan: the candidate and the program after it.
struct PlanStep {
  strategy::Candidate candidate;
  ir::Task after;
};

/// A multi-step plan from a program: its steps in order, the score of the last program, and a label
/// ("register block 8x32 of nest 0").
struct Plan {
  std::vector<PlanStep> steps;
  double score = 0;
  std::string label;
};

/// The best register-block plan of `t` by `score` (lower is better; predicted log2 seconds), over every qualifying
/// top-level nest, every row loop r and block shapes R x V with R in {8, 4} dividing r's extent (or r whole, up to
/// 8), V in {2 lanes, 4 lanes, lanes} dividing v's extent (or v whole, up to 4 lanes: a 62-wide row is one block of
/// 4 vectors), and R * ceil(V/lanes) accumulator vectors at most 24 with 16 lanes (AVX-512's 32 registers), else
/// 16. Sizes that are not multiples of 64 also get, when 8 does not divide r's extent, its divisors 5 to 7 as R
/// (196 rows: 7), and when 2 lanes do not divide v's, its divisors between 2 and 4 lanes as V (1000 columns: 40,
/// 50; the last vector partial). Ties go to the first in that order. nullopt when no nest qualifies or no plan is
/// legal.
/// `lanes`: f32 vector lanes of the machine (MachineModel::vector_lanes_f32). Never throws: a step that fails to
/// enumerate or apply ends its plan; a program `score` throws on is not a plan's end.
std::optional<Plan> register_block_plan(const ir::Task& t, int lanes,
                                        const std::function<double(const ir::Task&)>& score);

}  // namespace steptp::policy::cost
