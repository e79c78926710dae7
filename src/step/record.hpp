// The archival record, schema steptp.record/1 (DATASET.md §4): building, reading back the before/after tasks, and
// the schema check used by audit.
#pragma once
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::dataset {

inline constexpr const char* kRecordSchema = "steptp.record/1";

/// Known list as the record writes it: [{name, role, dtype, shape}] in declaration order.
ojson known_json(const std::vector<ir::KnownBuffer>& known);

/// The before (or after, which shares before.known) task of a record, parsed and named after the record's
/// workload. Throws LeirError on bad LEIR or known list.
ir::Task record_task(const ojson& rec, bool after);

/// Schema problems of one record (empty when it conforms): required keys, types, id formats, versions.
std::vector<std::string> record_schema_errors(const ojson& rec);

/// Sort key (workload, instance index, step index, strategy, record_id) of the archive order.
bool record_less(const ojson& a, const ojson& b);

}  // namespace steptp::dataset
