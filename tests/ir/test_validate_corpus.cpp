// Validator conformance on the reference corpus (LEIR.md §14): errors, warnings, initialisers, inferred shapes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "ir/printer.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "test_paths.hpp"

using namespace steptp::ir;

namespace {
using steptp_test::kCorpus;

struct Checked {
  Task task;
  Analysis a;
};

const std::vector<Checked>& corpus() {
  static const std::vector<Checked> all = [] {
    std::vector<Checked> out;
    for (auto& te : read_tasks_jsonl(kCorpus)) {
      EXPECT_TRUE(te.ok) << te.line << ": " << te.error.full();
      Checked c{std::move(te.task), {}};
      c.a = analyze(c.task);
      out.push_back(std::move(c));
    }
    return out;
  }();
  return all;
}

const Checked& by_name(const std::string& w) {
  for (const auto& c : corpus())
    if (c.task.workload == w) return c;
  throw std::runtime_error("no workload " + w);
}

std::vector<std::int64_t> shape_of(const Checked& c, const std::string& buf) {
  const BufferInfo* b = c.a.find(buf);
  return b ? b->shape : std::vector<std::int64_t>{-1};
}
}  // namespace

TEST(ValidateCorpus, ExactlyTheEightMqaTasksFailWithE203) {
  // LEIR.md §14: each writes O^{f64,g}=16; and then reads sqrt(O^{i32,g}) (a reference translator defect).
  const std::set<std::string> mqa = {"MQA",           "MQA_sum",       "MQA_mean",      "MQA_Gemm",
                                     "MQA_Gemm_ReLU", "MQA_Gemm_GeLU", "MQA_Gemm_Tanh", "MQA_Gemm_Tanh_mean"};
  ASSERT_EQ(corpus().size(), 89u);
  int failing = 0;
  for (const auto& c : corpus()) {
    std::vector<const Diagnostic*> errors;
    for (const auto& d : c.a.diags)
      if (!d.is_warning()) errors.push_back(&d);
    if (mqa.count(c.task.workload)) {
      ++failing;
      ASSERT_EQ(errors.size(), 1u) << c.task.workload;
      EXPECT_EQ(errors[0]->code, "E203");
      // The read O^{i32,g} inside sqrt(...): the offset points at `O` of that occurrence.
      EXPECT_NE(errors[0]->excerpt.find("sqrt(O^{i32,g})"), std::string::npos) << errors[0]->excerpt;
    } else {
      EXPECT_TRUE(errors.empty()) << c.task.workload << ": " << errors[0]->full();
    }
  }
  EXPECT_EQ(failing, 8);
}

TEST(ValidateCorpus, E203OffsetIsTheI32Read) {
  const Checked& c = by_name("MQA");
  const Diagnostic* e = c.a.first_error();
  ASSERT_NE(e, nullptr);
  // Offsets are 1-based into the (whitespace-free, hence canonical) LEIR text: 1509 is the `O` of sqrt(O^{i32,g}).
  const std::string leir = print_program(c.task.program);
  EXPECT_EQ(leir.substr(1509 - 1 - 5, 20), "sqrt(O^{i32,g});];B^");
  EXPECT_EQ(e->offset, 1509u);
  EXPECT_EQ(e->headline(), "LEIR-E203 at 1509: dtype i32 of O disagrees with its first occurrence (f64)");
}

TEST(ValidateCorpus, WarningsAreW004InNineTasksAndW005InCumsumExclusive) {
  int w004_tasks = 0, w004 = 0, w005 = 0, other = 0;
  for (const auto& c : corpus()) {
    int here = 0;
    for (const auto& d : c.a.diags) {
      if (!d.is_warning()) continue;
      if (d.code == "W004") {
        ++here;
        EXPECT_EQ(d.offset, 0u);
        EXPECT_EQ(d.path.rfind("known[", 0), 0u) << d.path;
      } else if (d.code == "W005") {
        ++w005;
        EXPECT_EQ(c.task.workload, "cumsum_exclusive");
        EXPECT_NE(d.message.find("intermediate D "), std::string::npos) << d.message;
      } else {
        ++other;
        ADD_FAILURE() << c.task.workload << ": " << d.full();
      }
    }
    w004 += here;
    w004_tasks += here > 0;
  }
  EXPECT_EQ(w004_tasks, 9);
  EXPECT_EQ(w004, 10);
  EXPECT_EQ(w005, 1);
  EXPECT_EQ(other, 0);
}

TEST(ValidateCorpus, InitialisersOf238ReductionsAndNoneForReadModifyWrite) {
  std::map<InitKind, int> by_kind;
  int reductions = 0, rmw = 0, rmw_with_init = 0;
  for (const auto& c : corpus()) {
    std::set<std::string> written;
    for_each_stmt(c.task.program, [&](const Stmt& s, const std::vector<const Loop*>&, std::size_t) {
      bool self = false;
      visit_expr(s.rhs, [&](const Expr& e) { self = self || e.is_ref(s.lhs.text); });
      const KnownBuffer* kb = c.task.find_known(s.lhs.text);
      const bool updates = (kb && kb->role != Role::Output) || written.count(s.lhs.text);
      written.insert(s.lhs.text);
      if (!self) {
        EXPECT_EQ(s.init, InitKind::None);
        return;
      }
      if (updates) {
        ++rmw;
        rmw_with_init += s.init != InitKind::None;
        return;
      }
      ++reductions;
      ++by_kind[s.init];
    });
  }
  EXPECT_EQ(reductions, 238);
  EXPECT_EQ(by_kind[InitKind::Zero], 210);
  EXPECT_EQ(by_kind[InitKind::NegInf], 27);
  EXPECT_EQ(by_kind[InitKind::One], 1);
  EXPECT_EQ(by_kind[InitKind::None], 0);
  EXPECT_EQ(rmw, 63);
  EXPECT_EQ(rmw_with_init, 0);
}

TEST(ValidateCorpus, ReductionVariablesInHeaderOrder) {
  const Checked& c = by_name("Matmul4D");
  const Stmt& s = c.task.program.nests[0].body[0].stmt();
  EXPECT_EQ(s.init, InitKind::Zero);
  EXPECT_EQ(s.reduction_vars, std::vector<std::string>{"f"});
  const Checked& am = by_name("Argmax_over_a_dimension");
  const Stmt& m = am.task.program.nests[0].body[0].stmt();  // D_{tx,c}=max(D_{tx,c},A_{tx,a,c})
  EXPECT_EQ(m.init, InitKind::NegInf);
  EXPECT_EQ(m.reduction_vars, std::vector<std::string>{"a"});
  const Stmt& second = am.task.program.nests[1].body[0].stmt();  // C=if_then_else(A>=D,a,C) after C=0
  EXPECT_EQ(second.init, InitKind::None);
  EXPECT_EQ(second.reduction_vars, std::vector<std::string>{"a"});
}

TEST(ValidateCorpus, BufferTableKnownFirstThenIntermediatesWithInferredShapes) {
  const Checked& c = by_name("cumsum_exclusive");
  std::vector<std::string> names;
  for (const auto& b : c.a.buffers) names.push_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"A", "H", "C", "D", "E", "F", "G"}));
  EXPECT_EQ(shape_of(c, "C"), (std::vector<std::int64_t>{128}));
  EXPECT_EQ(shape_of(c, "D"), (std::vector<std::int64_t>{128, 1}));
  EXPECT_EQ(shape_of(c, "F"), (std::vector<std::int64_t>{128, 1001}));  // F_{a,tx} and F_{a,tx+1}, tx<1000
  EXPECT_EQ(shape_of(c, "G"), (std::vector<std::int64_t>{127, 1001}));
  EXPECT_TRUE(c.a.buffers[0].known);
  EXPECT_EQ(c.a.buffers[0].role, Role::Input);
  EXPECT_FALSE(c.a.find("F")->known);

  // Padding: E_{tx,a,c,d} over c<260, d<258.
  const Checked& p = by_name("conv_standard_2D_square_input_asymmetric_kernel___dilated____padded");
  EXPECT_EQ(shape_of(p, "E"), (std::vector<std::int64_t>{16, 3, 260, 258}));
  // 0-d intermediate.
  const Checked& h = by_name("Hingeloss");
  EXPECT_EQ(shape_of(h, "H"), std::vector<std::int64_t>{});
  EXPECT_EQ(h.a.find("H")->numel(), 1);
}

TEST(ValidateCorpus, StaticTypesAreAnnotated) {
  // CrossEntropyLoss: I^{f32}_{tx}=-H^{i64}_{C_{tx}}*E^{f32}_{tx,C_{tx}}; the product is f32, -H is i64, and the
  // gather entry C_{tx} is i64.
  const Checked& c = by_name("CrossEntropyLoss");
  const Stmt& s = c.task.program.nests[4].body[0].stmt();
  ASSERT_EQ(s.lhs.text, "I");
  EXPECT_EQ(s.rhs.ty, DType::F32);
  EXPECT_EQ(s.rhs.args[0].kind, ExprKind::Neg);
  EXPECT_EQ(s.rhs.args[0].ty, DType::I64);
  EXPECT_EQ(s.rhs.args[0].args[0].args[0].ty, DType::I64);  // C^{i64}_{tx}
  // H^{i64,g}_{tx}=if_then_else(tx!=-100,1,0): both branches weak, resolved to the target type i64.
  const Stmt& h = c.task.program.nests[3].body[0].stmt();
  EXPECT_EQ(h.rhs.ty, DType::I64);
  EXPECT_EQ(h.rhs.args[0].ty, DType::Bool);
  EXPECT_EQ(h.rhs.args[0].args[1].ty, DType::I64);  // -100 compared with tx (i64)
  EXPECT_EQ(h.rhs.args[1].ty, DType::I64);
  // Every node of every valid corpus task is typed with a supported dtype.
  for (const auto& cc : corpus()) {
    if (!cc.a.ok()) continue;
    for_each_stmt(cc.task.program, [&](const Stmt& st, const std::vector<const Loop*>&, std::size_t) {
      auto check = [&](const Expr& e) { EXPECT_TRUE(is_supported(e.ty)) << cc.task.workload; };
      visit_expr(st.lhs, check);
      visit_expr(st.rhs, check);
    });
  }
}
