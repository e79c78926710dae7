#include "step/distribution.hpp"

#include <algorithm>
#include <cmath>

namespace steptp::dataset {

ojson distribution(std::vector<double> v) {
  ojson d;
  d["n"] = v.size();
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    double pos = p * double(v.size() - 1);
    std::size_t lo = std::size_t(std::floor(pos));
    std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
  };
  double lg = 0;
  bool pos_all = true;
  for (double x : v) {
    if (x > 0) lg += std::log(x);
    else pos_all = false;
  }
  d["min"] = v.front();
  d["p10"] = q(0.10);
  d["p25"] = q(0.25);
  d["median"] = q(0.5);
  d["p75"] = q(0.75);
  d["p90"] = q(0.90);
  d["max"] = v.back();
  d["geomean"] = pos_all ? std::exp(lg / double(v.size())) : 0.0;
  return d;
}

}  // namespace steptp::dataset
