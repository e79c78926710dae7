#include "dataset/export.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "dataset/card.hpp"
#include "dataset/filter.hpp"
#include "base/hash.hpp"
#include "step/prompt.hpp"
#include "step/record.hpp"
#include "step/tokens.hpp"
#include "dataset/stats.hpp"
#include "ir/task.hpp"

namespace fs = std::filesystem;

namespace steptp::dataset {

std::string to_jsonl(const std::vector<ojson>& lines) {
  std::string s;
  for (const auto& l : lines) s += dump_py(l) + "\n";
  return s;
}

namespace {

struct Writer {
  std::string root;
  std::vector<std::pair<std::string, std::string>> files;  // relative path, sha256
  void put(const std::string& rel, const std::string& content) {
    fs::path p = fs::path(root) / rel;
    try {
      fs::create_directories(p.parent_path());
      ir::write_file_atomic(p.string(), content);
    } catch (const std::exception& e) {
      throw DatasetDirError(Code::D010, p.string(), std::string("cannot write the file: ") + e.what());
    }
    files.emplace_back(rel, sha256_hex(content));
  }
};

bool reject_less(const Reject& a, const Reject& b) {
  return std::tie(a.unit, a.strategy, a.stage, a.reason, a.detail) < std::tie(b.unit, b.strategy, b.stage, b.reason, b.detail);
}

}  // namespace

void export_dataset(const std::string& out_dir, ExportInput in) {
  remove_stale_temp_files(out_dir, {"archive", "chat", "eval"});
  std::sort(in.archive.begin(), in.archive.end(), record_less);
  FilterOutput f = filter_records(in.archive, in.rejects, in.filter, in.gen.master_seed,
                                  make_token_counter(in.gen.tokenizer).get());
  Writer w{out_dir, {}};
  CardInput card;
  card.archive_lines["all"] = std::int64_t(in.archive.size());
  w.put("archive/all.jsonl", to_jsonl(in.archive));
  std::string sys = render_system();
  for (const char* sp : kSplits) {
    std::vector<ojson> recs;
    for (auto i : f.kept[sp]) {
      ojson r = in.archive[i];
      if (f.aliases.count(i)) r["alias_strategies"] = f.aliases[i];
      recs.push_back(std::move(r));
    }
    card.archive_lines[sp] = std::int64_t(recs.size());
    card.chat_lines[sp] = std::int64_t(f.samples[sp].size());
    w.put(std::string("archive/") + sp + ".jsonl", to_jsonl(recs));
    std::string chat, ids;
    for (const auto& s : f.samples[sp]) {
      ojson line;
      line["messages"] = ojson::array({{{"role", "system"}, {"content", sys}},
                                       {{"role", "user"}, {"content", s.user}},
                                       {{"role", "assistant"}, {"content", s.assistant}}});
      chat += dump_py(line) + "\n";
      std::string id;
      for (auto i : s.recs) id += (id.empty() ? "" : ",") + in.archive[i]["record_id"].get<std::string>();
      ids += id + "\n";
    }
    w.put(std::string("chat/") + sp + ".jsonl", chat);
    w.put(std::string("chat/") + sp + ".ids", ids);
  }
  for (const char* sp : {"val", "test"}) {
    card.eval_lines[sp] = std::int64_t(f.eval_prompts[sp].size());
    w.put(std::string("eval/") + sp + ".prompts.jsonl", to_jsonl(f.eval_prompts[sp]));
  }
  std::vector<Reject> all = in.rejects;
  all.insert(all.end(), f.rejects.begin(), f.rejects.end());
  std::sort(all.begin(), all.end(), reject_less);
  std::string rj;
  for (const auto& r : all) rj += dump_py(r.to_json()) + "\n";
  w.put("rejects.jsonl", rj);
  ojson stats = compute_stats(in.archive, all, in.counters, f);
  w.put("stats.json", dump_pretty(stats));
  w.put("stats.md", render_stats_md(stats));
  card.gen_hash = in.gen.hash();
  card.filter_hash = in.filter.hash();
  w.put("README.md", render_dataset_card(card));  // the Hugging Face dataset card (issue #15)
  ojson m;
  m["schema"] = "steptp.manifest/1";
  m["versions"] = {{"steptp", kSteptpVersion}, {"generator", kGeneratorVersion}, {"lowering", kLoweringVersion},
                   {"renderer", kRendererVersion}, {"prompt", kPromptVersion}, {"record", kRecordSchema},
                   {"chat", "steptp.chat/1"}, {"prompt_template", "steptp.prompt/1"}, {"tvmscript", "tvm-0.21"}};
  m["config"] = {{"gen", in.gen.to_json()}, {"filter", in.filter.to_json()}};
  m["gen_hash"] = in.gen.hash();
  m["filter_hash"] = in.filter.hash();
  m["env"] = in.env;
  ojson files = ojson::object();
  std::sort(w.files.begin(), w.files.end());
  for (auto& [p, h] : w.files) files[p] = h;
  m["files"] = files;
  try {
    ir::write_file_atomic((fs::path(out_dir) / "manifest.json").string(), dump_pretty(m));
  } catch (const std::exception& e) {
    throw DatasetDirError(Code::D010, (fs::path(out_dir) / "manifest.json").string(),
                          std::string("cannot write the file: ") + e.what());
  }
}

ojson expected_stats(std::vector<ojson> archive, std::vector<Reject> rejects,
                     const std::map<std::string, std::int64_t>& counters, const GenConfig& gen,
                     const FilterConfig& filter) {
  std::sort(archive.begin(), archive.end(), record_less);
  FilterOutput f = filter_records(archive, rejects, filter, gen.master_seed, make_token_counter(gen.tokenizer).get());
  rejects.insert(rejects.end(), f.rejects.begin(), f.rejects.end());
  std::sort(rejects.begin(), rejects.end(), reject_less);  // the order of each stage's reasons in stats.json
  return compute_stats(archive, rejects, counters, f);
}

namespace {

/// The manifest's file list checked against the files: (file, problem), or ("manifest.json", problem) when the
/// manifest lists no files or cannot be read.
std::vector<std::pair<std::string, std::string>> manifest_problems(const std::string& out_dir) {
  fs::path mp = fs::path(out_dir) / "manifest.json";
  if (!fs::exists(mp)) return {{"manifest.json", "manifest.json is missing"}};
  ojson m;
  try {
    m = ojson::parse(ir::read_file(mp.string()));
  } catch (const std::exception&) {
    return {{"manifest.json", "manifest.json is malformed"}};
  }
  if (!m.is_object() || !m.contains("files") || !m["files"].is_object())
    return {{"manifest.json", "manifest.json lists no files"}};
  std::vector<std::pair<std::string, std::string>> errs;
  for (auto it = m["files"].begin(); it != m["files"].end(); ++it) {
    fs::path p = fs::path(out_dir) / it.key();
    if (!fs::is_regular_file(p)) {
      errs.emplace_back(it.key(), it.key() + " is missing");
      continue;
    }
    if (!it.value().is_string() || sha256_hex(ir::read_file(p.string())) != it.value().get<std::string>())
      errs.emplace_back(it.key(), it.key() + " does not match its SHA-256 in the manifest");
  }
  return errs;
}

/// `what` at `where` as D003 (a file or line that is not what steptp wrote).
[[noreturn]] void not_written_by_steptp(const std::string& where, const std::string& what) {
  throw DatasetDirError(Code::D003, where, what);
}

}  // namespace

std::vector<std::string> verify_manifest(const std::string& out_dir) {
  std::vector<std::string> errs;
  for (auto& [file, what] : manifest_problems(out_dir)) errs.push_back(what);
  return errs;
}

ExportInput load_export_input(const std::string& out_dir) {
  ojson m = read_manifest(out_dir);  // D001, D003, D004
  const std::string mp = (fs::path(out_dir) / "manifest.json").string();
  for (const auto& [file, what] : manifest_problems(out_dir)) {
    if (file == "manifest.json") not_written_by_steptp(mp, what);
    throw DatasetDirError(Code::D009, (fs::path(out_dir) / file).string(),
                          what + " (re-create the dataset with `steptp generate`)");
  }
  ExportInput in;
  try {
    in.gen = GenConfig::from_json(m.at("config").at("gen"));
    in.filter = FilterConfig::from_json(m.at("config").at("filter"));
    in.env = m.value("env", "");
  } catch (const std::exception& e) {
    not_written_by_steptp(mp, std::string("not a steptp manifest (its configuration: ") + e.what() + ")");
  }
  const std::string ap = (fs::path(out_dir) / "archive/all.jsonl").string();
  in.archive = read_jsonl(ap);  // D002, D003
  for (std::size_t i = 0; i < in.archive.size(); ++i) {
    auto errs = record_schema_errors(in.archive[i]);
    if (!errs.empty()) not_written_by_steptp(ap + ":" + std::to_string(i + 1), "not a steptp record: " + errs[0]);
  }
  const std::string rp = (fs::path(out_dir) / "rejects.jsonl").string();
  std::size_t line = 0;
  for (const auto& r : read_jsonl(rp)) {
    ++line;
    try {
      if (Reject x = Reject::from_json(r); x.before_filter()) in.rejects.push_back(std::move(x));
    } catch (const std::exception&) {
      not_written_by_steptp(rp + ":" + std::to_string(line), "not a steptp reject line");
    }
  }
  const std::string sp = require_file(out_dir, "stats.json", "the statistics file");  // D002
  ojson stats = ojson::parse(ir::read_file(sp), nullptr, false);
  if (stats.is_discarded() || !stats.is_object() || !stats.contains("pipeline_counters") ||
      !stats["pipeline_counters"].is_object())
    not_written_by_steptp(sp, "not a steptp statistics file (no pipeline_counters object)");
  for (auto it = stats["pipeline_counters"].begin(); it != stats["pipeline_counters"].end(); ++it) {
    if (!it.value().is_number_integer())
      not_written_by_steptp(sp, "pipeline counter '" + it.key() + "' is not an integer");
    in.counters[it.key()] = it.value().get<std::int64_t>();
  }
  return in;
}

}  // namespace steptp::dataset
