// Task JSON / JSONL I/O (LEIR.md §2).
#include "ir/task.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "ir/parser.hpp"
#include "ir/printer.hpp"

namespace steptp::ir {

std::string_view value_range_name(ValueRange r) {
  switch (r) {
    case ValueRange::Any: return "any";
    case ValueRange::Positive: return "positive";
    case ValueRange::NonNegative: return "nonnegative";
  }
  return "any";
}

std::string_view role_name(Role r) {
  switch (r) {
    case Role::Input: return "input";
    case Role::Constant: return "constant";
    case Role::Param: return "param";
    case Role::Output: return "output";
  }
  return "?";
}

std::int64_t KnownBuffer::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

const KnownBuffer* Task::find_known(std::string_view name) const {
  for (const auto& k : known)
    if (k.name == name) return &k;
  return nullptr;
}

namespace {

[[noreturn]] void task_error(Code code, const std::string& path, const std::string& msg) {
  throw LeirError(code, msg, 0, path);
}

/// Whether `text` starts (after white space) like a LEIR program rather than JSON: a name followed by "^{" (a
/// loop such as `L^{4}` or a buffer such as `D^{f32,g}`, LEIR.md §4). A JSON value never starts so.
bool looks_like_bare_leir(std::string_view text) {
  std::size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || !std::isalpha(static_cast<unsigned char>(text[i]))) return false;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
  return text.substr(i, 2) == "^{";
}

const nlohmann::json& member(const nlohmann::json& j, const char* key, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) task_error(Code::E101, path + key, fmt::format("missing member \"{}\"", key));
  return *it;
}

std::string string_member(const nlohmann::json& j, const char* key, const std::string& path) {
  const auto& v = member(j, key, path);
  if (!v.is_string()) task_error(Code::E101, path + key, fmt::format("member \"{}\" must be a string", key));
  return v.get<std::string>();
}

// Python json.dumps string escaping with ensure_ascii=True.
void dump_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else if (c < 0x80) {
          out += static_cast<char>(c);
        } else {
          // decode UTF-8 into code points and escape as \uXXXX (surrogate pairs above the BMP)
          std::uint32_t cp = 0;
          int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
          cp = c & (0x3F >> extra);
          for (int k = 0; k < extra && i + 1 < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[++i]) & 0x3F);
          if (cp >= 0x10000) {
            cp -= 0x10000;
            out += fmt::format("\\u{:04x}\\u{:04x}", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
          } else {
            out += fmt::format("\\u{:04x}", cp);
          }
        }
    }
  }
  out += '"';
}

}  // namespace

Task parse_task(std::string_view json_text) {
  if (json_text.size() > kMaxTaskBytes)
    task_error(Code::E107, "$", fmt::format("task text of {} bytes exceeds the limit of {} bytes", json_text.size(),
                                        kMaxTaskBytes));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range 406 for a number like 1e999
    task_error(Code::E101, "$",
               fmt::format("malformed JSON: {}{}",
                           looks_like_bare_leir(json_text)
                               ? "this is bare LEIR text: a task is a JSON object with members \"workload\", "
                                 "\"suite\", \"known\" (each buffer's name, role, dtype and shape) and \"leir\" "
                                 "(LEIR.md §2; `steptp workloads emit Matmul3D` prints one); "
                               : "",
                           e.what()));
  }
  if (!j.is_object()) task_error(Code::E101, "$", "a task must be a JSON object");
  // Several required members missing: name them all in one error, so a hand-written file is fixed in one go.
  std::string missing;
  int n_missing = 0;
  for (const char* key : {"workload", "suite", "known", "leir"})
    if (!j.contains(key)) missing += fmt::format("{}\"{}\"", n_missing++ ? ", " : "", key);
  if (n_missing > 1) task_error(Code::E101, "$", "missing members " + missing);
  Task t;
  t.workload = string_member(j, "workload", "");
  t.suite = string_member(j, "suite", "");
  const auto& known = member(j, "known", "");
  if (!known.is_array()) task_error(Code::E101, "known", "member \"known\" must be an array");
  int last_role = -1;
  bool has_output = false;
  for (std::size_t i = 0; i < known.size(); ++i) {
    const auto& k = known[i];
    std::string path = fmt::format("known[{}].", i);
    if (!k.is_object()) task_error(Code::E101, fmt::format("known[{}]", i), "known entry must be an object");
    KnownBuffer kb;
    kb.name = string_member(k, "name", path);
    std::string role = string_member(k, "role", path);
    if (role == "input") kb.role = Role::Input;
    else if (role == "constant") kb.role = Role::Constant;
    else if (role == "param") kb.role = Role::Param;
    else if (role == "output") kb.role = Role::Output;
    else task_error(Code::E102, path + "role", fmt::format("bad role \"{}\" (input, constant, param or output)", role));
    std::string dt = string_member(k, "dtype", path);
    auto d = parse_dtype(dt);
    if (!d) task_error(Code::E102, path + "dtype", fmt::format("bad dtype \"{}\"", dt));
    kb.dtype = *d;
    const auto& shape = member(k, "shape", path);
    if (!shape.is_array()) task_error(Code::E102, path + "shape", "shape must be an array of integers");
    for (std::size_t s = 0; s < shape.size(); ++s) {
      const auto& v = shape[s];
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() >= (std::int64_t{1} << 31))
        task_error(Code::E102, fmt::format("{}shape[{}]", path, s), "shape entries must be integers in [1, 2^31)");
      kb.shape.push_back(v.get<std::int64_t>());
    }
    if (auto it = k.find("range"); it != k.end()) {
      const std::string r = it->is_string() ? it->get<std::string>() : std::string("?");
      if (r == "positive") kb.range = ValueRange::Positive;
      else if (r == "nonnegative") kb.range = ValueRange::NonNegative;
      else if (r != "any")
        task_error(Code::E102, path + "range", fmt::format("bad range {} (\"positive\", \"nonnegative\" or \"any\")",
                                                       it->dump()));
      if (kb.range != ValueRange::Any && kb.role == Role::Output)
        task_error(Code::E102, path + "range", "a range can be declared for inputs, constants and params, not outputs");
    }
    for (const auto& prev : t.known)
      if (prev.name == kb.name)
        task_error(Code::E103, path + "name", fmt::format("duplicate known name \"{}\"", kb.name));
    int r = static_cast<int>(kb.role);
    if (r < last_role)
      task_error(Code::E104, path + "role",
                 fmt::format("known order must be inputs, constants, params, outputs; \"{}\" ({}) comes too late",
                             kb.name, role));
    last_role = r;
    has_output |= kb.role == Role::Output;
    t.known.push_back(std::move(kb));
  }
  if (!has_output) task_error(Code::E105, "known", "the task has no output buffer");
  std::string leir = string_member(j, "leir", "");
  t.program = parse_program(leir);
  return t;
}

std::string task_to_json(const Task& t) {
  std::string out;
  out.reserve(256);
  out += "{\"workload\": ";
  dump_string(out, t.workload);
  out += ", \"suite\": ";
  dump_string(out, t.suite);
  out += ", \"known\": [";
  for (std::size_t i = 0; i < t.known.size(); ++i) {
    const auto& k = t.known[i];
    if (i) out += ", ";
    out += "{\"name\": ";
    dump_string(out, k.name);
    out += ", \"role\": ";
    dump_string(out, role_name(k.role));
    out += ", \"dtype\": ";
    dump_string(out, dtype_name(k.dtype));
    out += ", \"shape\": [";
    for (std::size_t s = 0; s < k.shape.size(); ++s) {
      if (s) out += ", ";
      out += std::to_string(k.shape[s]);
    }
    out += ']';
    if (k.range != ValueRange::Any) {
      out += ", \"range\": ";
      dump_string(out, value_range_name(k.range));
    }
    out += '}';
  }
  out += "], \"leir\": ";
  dump_string(out, print_program(t.program));
  out += '}';
  return out;
}

std::vector<TaskOrError> read_tasks_jsonl(const std::string& path) {
  std::string all = read_file(path);
  std::vector<TaskOrError> out;
  std::size_t line = 0, pos = 0;
  while (pos <= all.size()) {
    std::size_t nl = all.find('\n', pos);
    if (nl == std::string::npos) nl = all.size();
    ++line;
    std::string_view l(all.data() + pos, nl - pos);
    pos = nl + 1;
    bool blank = l.find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank) {
      if (nl == all.size()) break;
      continue;
    }
    TaskOrError te;
    te.line = line;
    try {
      te.task = parse_task(l);
      te.ok = true;
    } catch (const LeirError& e) {
      te.error = e.diag();
      // Keep the workload name for messages when the JSON itself is fine (e.g. only the LEIR text is malformed).
      auto j = nlohmann::json::parse(l, nullptr, false);
      if (j.is_object() && j.contains("workload") && j["workload"].is_string())
        te.task.workload = j["workload"].get<std::string>();
    }
    out.push_back(std::move(te));
    if (nl == all.size()) break;
  }
  return out;
}

Task read_task_file(const std::string& path) {
  // A task is at most kMaxTaskBytes (E107): read no more than that (plus leading blank lines) of a JSON file or of a
  // JSONL file's first line, however long the file or stream is.
  constexpr std::size_t kHead = kMaxTaskBytes + (std::size_t{64} << 10);
  bool truncated = false;
  const std::string all = read_file_head(path, kHead, &truncated);
  auto first = all.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    if (truncated) throw LeirError(Code::E107, fmt::format("no task in the first {} bytes", kHead), 0, path);
    throw LeirError(Code::E101, fmt::format("'{}' is empty", path), 0, "$");
  }
  const auto nl = all.find('\n', first);
  if (truncated) {  // too long for one task: only a JSONL file's first line can be one
    if (nl == std::string::npos)
      throw LeirError(Code::E107, fmt::format("file exceeds the read limit of {} bytes for one task (or a first "
                                          "JSONL line)", kHead), 0, path);
    return parse_task(std::string_view(all).substr(first, nl - first));
  }
  // A single JSON object (possibly pretty-printed) or JSONL: try the whole text first, then the first line.
  try {
    return parse_task(all);
  } catch (const LeirError& e) {
    if (e.id() != Code::E101 && e.id() != Code::E107) throw;
    if (nl == std::string::npos) throw;
    return parse_task(std::string_view(all).substr(first, nl - first));
  }
}

}  // namespace steptp::ir
