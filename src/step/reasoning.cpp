#include "step/reasoning.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace steptp::dataset {
namespace {

std::string text_of(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return fmt_number(v);
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "n/a";
  return dump_py(v);
}

std::string shape_text(const ojson& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + text_of(s[i]);
  return out + "]";
}

std::string strides_text(const ojson& el) {
  std::string out;
  for (auto it = el.begin(); it != el.end(); ++it)
    out += (out.empty() ? "" : "; ") + it.key() + " " + (it.value().is_null() ? "non-affine" : text_of(it.value()));
  return out;
}

std::string class_text(const std::string& c, const ojson& facts) {
  if (c == "E") return "bitwise";
  if (c == "R") return "up to rounding";
  if (c == "P") return "corrected";
  std::string conds;
  for (const auto& f : facts)
    if (f["k"] == "condition") conds += (conds.empty() ? "" : " and ") + text_of(f["expr"]);
  return conds.empty() ? "if its domain condition holds" : "if " + conds;
}

}  // namespace

std::string fmt_number(const ojson& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  double d = v.get<double>();
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return fmt::format("{:.2f}", d);
  return fmt::format("{:.2f}", d);
}

std::string render_reasoning(const ojson& facts, const std::string& strategy) {
  std::vector<std::string> obs, cand, legal, effect, result;
  // Observation: group compute / loops / strides per nest, then buffers and totals.
  std::map<std::int64_t, std::string> loops_line;
  std::vector<std::int64_t> nest_order;
  std::string buffers, flops, traffic, intensity;
  for (const auto& f : facts) {
    const std::string k = f["k"];
    if (k == "compute") {
      std::string line = "- nest " + text_of(f["nest"]) + " computes " + text_of(f["text"]);
      std::string kind = f["kind"];
      if (kind != "assign") {
        std::string over;
        for (const auto& o : f["over"]) over += (over.empty() ? "" : ", ") + text_of(o);
        line += ", a " + kind + (over.empty() ? "" : " over " + over);
      }
      obs.push_back(line);
    } else if (k == "loop") {
      std::int64_t n = f["nest"];
      auto& l = loops_line[n];
      l += (l.empty() ? "" : "; ") + text_of(f["key"]) + " " + text_of(f["kind"]) + " " + text_of(f["extent"]) + " " +
           text_of(f["role"]);
    } else if (k == "iterations") {
      std::int64_t n = f["nest"];
      obs.push_back("- nest " + std::to_string(n) + " loops: " + loops_line[n] + (loops_line[n].empty() ? "" : "; ") +
                    "iterations " + text_of(f["value"]));
    } else if (k == "strides" && f["side"] == "before") {
      obs.push_back("- nest " + text_of(f["nest"]) + " innermost loop " + text_of(f["loop"]) +
                    ", strides in elements: " + strides_text(f["elements"]));
    } else if (k == "buffer") {
      buffers += (buffers.empty() ? "" : "; ") + text_of(f["name"]) + " " + text_of(f["role"]) + " " +
                 text_of(f["dtype"]) + " " + shape_text(f["shape"]) + " " + text_of(f["bytes"]) + " B";
    } else if (k == "flops") {
      flops = text_of(f["value"]);
    } else if (k == "min_traffic") {
      traffic = text_of(f["bytes"]);
    } else if (k == "intensity") {
      intensity = text_of(f["value"]);
    } else if (k == "site") {
      cand.push_back("- strategy " + strategy + ", candidate " + text_of(f["candidate"]));
    } else if (k == "params") {
      std::string p;
      for (auto it = f["values"].begin(); it != f["values"].end(); ++it)
        p += (p.empty() ? "" : "; ") + it.key() + " " + text_of(it.value());
      cand.push_back("- parameters: " + (p.empty() ? std::string("none") : p));
    } else if (k == "detail") {
      cand.push_back("- " + text_of(f["key"]) + ": " + text_of(f["value"]));
    } else if (k == "buffers_changed") {
      std::string c, r;
      for (const auto& b : f["created"]) c += (c.empty() ? "" : ", ") + text_of(b);
      for (const auto& b : f["removed"]) r += (r.empty() ? "" : ", ") + text_of(b);
      cand.push_back("- buffers created: " + (c.empty() ? "none" : c) + "; removed: " + (r.empty() ? "none" : r));
    } else if (k == "legality") {
      std::string line = "- " + text_of(f["check"]) + ": " + (f["result"] == true ? "holds" : "does not hold") + " (" +
                         text_of(f["method"]) + ")";
      if (f.contains("detail")) line += ", " + text_of(f["detail"]);
      legal.push_back(line);
    } else if (k == "condition") {
      legal.push_back("- " + text_of(f["kind"]) + " condition " + text_of(f["expr"]) + ": " + text_of(f["status"]));
    } else if (k == "class") {
      legal.push_back("- exactness: " + class_text(f["value"], facts));
    } else if (k == "effect") {
      // rendered below, in a fixed grouping
    } else if (k == "strides" && f["side"] == "after") {
      std::string line = "- nest " + text_of(f["nest"]) + " loop " + text_of(f["loop"]) + " (extent " +
                         text_of(f["extent"]) + "), strides in elements: " + strides_text(f["elements"]);
      if (!f["contiguous_bytes"].is_null()) line += "; contiguous run " + text_of(f["contiguous_bytes"]) + " B";
      effect.push_back(line);
    } else if (k == "result") {
      result.push_back("- nest " + text_of(f["nest"]) + ": " + text_of(f["text"]));
    } else if (k == "result_removed") {
      result.push_back("- nests removed: " + text_of(f["nests"]));
    }
  }
  if (!buffers.empty()) obs.push_back("- buffers: " + buffers);
  obs.push_back("- flops " + flops + "; minimum traffic " + traffic + " B; arithmetic intensity " + intensity +
                " flop/B");
  std::map<std::string, std::pair<std::string, std::string>> eff;
  for (const auto& f : facts)
    if (f["k"] == "effect") eff[f["metric"]] = {text_of(f["before"]), text_of(f["after"])};
  std::vector<std::string> eff_lines = {
      "- iterations " + eff["iterations"].first + " -> " + eff["iterations"].second + "; minimum traffic " +
          eff["min_traffic_bytes"].first + " B -> " + eff["min_traffic_bytes"].second + " B; footprint " +
          eff["footprint_bytes"].first + " B -> " + eff["footprint_bytes"].second + " B",
      "- parallel iterations " + eff["parallel_iterations"].first + " -> " + eff["parallel_iterations"].second +
          "; flops " + eff["flops"].first + " -> " + eff["flops"].second};
  effect.insert(effect.begin(), eff_lines.begin(), eff_lines.end());
  if (result.empty()) result.push_back("- no nest changed");
  std::string out;
  auto section = [&](const char* name, const std::vector<std::string>& lines) {
    if (!out.empty()) out += "\n";
    out += name;
    out += ":";
    for (const auto& l : lines) out += "\n" + l;
  };
  section("Observation", obs);
  section("Candidate", cand);
  section("Legality", legal);
  section("Expected effect", effect);
  section("Result", result);
  return out;
}

std::pair<std::string, std::string> split_observation(const std::string& r) {
  if (r.rfind("Observation:\n", 0) != 0) throw std::invalid_argument("reasoning lacks the Observation section");
  auto p = r.find("\nCandidate:\n");
  if (p == std::string::npos) throw std::invalid_argument("reasoning lacks the Candidate section");
  return {r.substr(0, p), r.substr(p + 1)};
}

std::string render_multi_reasoning(const std::vector<std::string>& rs) {
  if (rs.empty()) return "";
  std::string out = split_observation(rs[0]).first;
  for (std::size_t i = 0; i < rs.size(); ++i)
    out += "\nOption " + std::to_string(i + 1) + " of " + std::to_string(rs.size()) + ":\n" +
           split_observation(rs[i]).second;
  return out;
}

}  // namespace steptp::dataset
