// Statistics report (DATASET.md §7.5): stats.json and stats.md from the archive, the rejects, the pipeline's
// funnel counters and the filter output.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "dataset/filter.hpp"
#include "step/distribution.hpp"

namespace steptp::dataset {

ojson compute_stats(const std::vector<ojson>& archive, const std::vector<Reject>& rejects,
                    const std::map<std::string, std::int64_t>& counters, const FilterOutput& f);
std::string render_stats_md(const ojson& stats);

}  // namespace steptp::dataset
