// Order statistics of a sample, as the dataset statistics, eval summaries and search reports print them.
#pragma once
#include <vector>

#include "base/json_text.hpp"

namespace steptp::dataset {

/// Order statistics of a sample: {n, min, p10, p25, median, p75, p90, max, geomean} (linear interpolation).
ojson distribution(std::vector<double> v);

}  // namespace steptp::dataset
