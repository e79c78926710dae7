#include "policy/cost/model.hpp"

#include <cmath>

namespace steptp::policy::cost {
namespace {

class AnalyticalModel : public CostModel {
 public:
  explicit AnalyticalModel(const MachineModel& m) : m_(m) {}
  std::string name() const override { return "analytical"; }
  double score(const ir::Task& t) const override { return std::log2(analytical_estimate(t, m_).seconds); }

 private:
  MachineModel m_;
};

}  // namespace

std::unique_ptr<CostModel> make_analytical_model(const MachineModel& m) {
  return std::make_unique<AnalyticalModel>(m);
}

}  // namespace steptp::policy::cost
