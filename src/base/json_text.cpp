#include "base/json_text.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace steptp::core {
namespace {

void scalar(const ojson& j, std::string& out) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) {
    out += "null";
    return;
  }
  out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void py(const ojson& j, std::string& out) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += ojson(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += ": ";
      py(it.value(), out);
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& e : j) {
      if (!first) out += ", ";
      first = false;
      py(e, out);
    }
    out += ']';
  } else {
    scalar(j, out);
  }
}

void canon(const ojson& j, std::string& out) {
  if (j.is_object()) {
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    out += '{';
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i) out += ',';
      out += ojson(keys[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += ':';
      canon(j.at(keys[i]), out);
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ',';
      canon(j[i], out);
    }
    out += ']';
  } else {
    scalar(j, out);
  }
}

}  // namespace

std::string dump_py(const ojson& j) {
  std::string s;
  py(j, s);
  return s;
}

std::string canonical_json(const ojson& j) {
  std::string s;
  canon(j, s);
  return s;
}

std::string dump_pretty(const ojson& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; }

}  // namespace steptp::core
