// Helpers for validator tests: build a task from a compact known list and a LEIR text.
#pragma once
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::ir::testutil {

/// `known` is "name:role:dtype:shape;..." with shape "4x8" ("" for 0-d), e.g. "A:input:f32:4;C:output:f32:".
inline Task make_task(const std::string& known, const std::string& leir) {
  std::ostringstream js;
  js << R"({"workload": "t", "suite": "test", "known": [)";
  std::stringstream ks(known);
  std::string entry;
  bool first = true;
  while (std::getline(ks, entry, ';')) {
    if (entry.empty()) continue;
    std::string f[4];
    std::stringstream es(entry);
    for (auto& x : f) std::getline(es, x, ':');
    std::string shape;
    std::stringstream ss(f[3]);
    for (std::string d; std::getline(ss, d, 'x');) shape += (shape.empty() ? "" : ", ") + d;
    js << (first ? "" : ", ") << R"({"name": ")" << f[0] << R"(", "role": ")" << f[1] << R"(", "dtype": ")" << f[2]
       << R"(", "shape": [)" << shape << "]}";
    first = false;
  }
  js << R"(], "leir": ")" << leir << R"("})";
  return parse_task(js.str());
}

/// 1-based offset of the `nth` (0-based) occurrence of `marker` in `text`.
inline std::uint32_t offset_of(const std::string& text, const std::string& marker, int nth = 0) {
  std::size_t pos = text.find(marker);
  for (int i = 0; i < nth && pos != std::string::npos; ++i) pos = text.find(marker, pos + 1);
  EXPECT_NE(pos, std::string::npos) << marker << " not in " << text;
  return static_cast<std::uint32_t>(pos + 1);
}

/// Codes of all diagnostics, in order.
inline std::vector<std::string> codes(const Analysis& a) {
  std::vector<std::string> out;
  for (const auto& d : a.diags) out.push_back(d.code);
  return out;
}

}  // namespace steptp::ir::testutil
