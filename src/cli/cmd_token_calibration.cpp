// `steptp token-calibration` (hidden): the built-in token rules against a tokenizer.json on chat samples
// (bench/RESULTS.md "Token counts"). For each chat line of the files, prompt = system + user and completion =
// assistant (DATASET.md §4); prints one JSON object: per side the sample count, the token totals of the tokenizer,
// approx-v1 and approx-v2, the total ratios and the spread of the per-sample ratios, and the tokenizer's speed.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "base/json_text.hpp"
#include "cli/command.hpp"
#include "step/bpe_tokenizer.hpp"
#include "step/dataset_dir.hpp"
#include "step/tokens.hpp"

namespace steptp::cli {
namespace {

struct CalibrationArgs {
  std::string tokenizer;
  std::vector<std::string> files;
  bool per_sample = false;
};

/// Totals and per-sample ratio quantiles of one rule against the reference counts.
core::ojson compare(const std::vector<std::int64_t>& ref, const std::vector<std::int64_t>& rule) {
  std::int64_t tr = 0, tq = 0;
  std::vector<double> r;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    tr += rule[i];
    tq += ref[i];
    if (ref[i] > 0) r.push_back(double(rule[i]) / double(ref[i]));
  }
  std::sort(r.begin(), r.end());
  auto q = [&](double p) { return r.empty() ? 0.0 : r[std::min(r.size() - 1, std::size_t(p * double(r.size() - 1) + 0.5))]; };
  return {{"total", tr}, {"ratio", tq ? double(tr) / double(tq) : 0.0},
          {"per_sample", {{"min", q(0)}, {"p05", q(0.05)}, {"p50", q(0.5)}, {"p95", q(0.95)}, {"max", q(1)}}}};
}

int run(const CalibrationArgs& a) {
  auto tok = core::BpeTokenizer::from_file(a.tokenizer);  // D012
  // A sample's texts: prompts are system + user, each counted on its own as the records do; completions one text.
  std::vector<std::vector<std::string>> sides[2];
  for (const auto& f : a.files)
    for (const auto& line : dataset::read_jsonl(f)) {
      const auto& m = line.at("messages");
      sides[0].push_back({m.at(0).at("content").get<std::string>(), m.at(1).at("content").get<std::string>()});
      sides[1].push_back({m.at(2).at("content").get<std::string>()});
    }
  core::ojson out = {{"tokenizer", a.tokenizer}, {"rule", "bpe:" + tok->sha256().substr(0, 16)}};
  std::int64_t strings = 0, bytes = 0;
  double seconds = 0;
  for (int s = 0; s < 2; ++s) {
    std::vector<std::int64_t> ref, v1, v2;
    for (const auto& texts : sides[s]) {
      std::int64_t r = 0, a1 = 0, a2 = 0;
      for (const auto& text : texts) {
        auto t0 = std::chrono::steady_clock::now();
        r += tok->count(text);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ++strings;
        bytes += std::int64_t(text.size());
        a1 += core::approx_tokens_v1(text);
        a2 += core::approx_tokens(text);
      }
      ref.push_back(r);
      v1.push_back(a1);
      v2.push_back(a2);
    }
    std::int64_t total = 0;
    for (auto n : ref) total += n;
    core::ojson side = {{"samples", std::int64_t(ref.size())}, {"tokenizer_total", total},
                        {"approx_v1", compare(ref, v1)}, {"approx_v2", compare(ref, v2)}};
    if (a.per_sample) side["counts"] = {{"tokenizer", ref}, {"approx_v1", v1}, {"approx_v2", v2}};
    out[s == 0 ? "prompts" : "completions"] = side;
  }
  out["speed"] = {{"strings", strings}, {"bytes", bytes}, {"seconds", seconds},
                  {"strings_per_s", seconds > 0 ? double(strings) / seconds : 0.0},
                  {"mib_per_s", seconds > 0 ? double(bytes) / seconds / 1048576.0 : 0.0}};
  std::cout << core::dump_pretty(out) << "\n";
  return 0;
}

CommandRegistrar reg("99-token-calibration", [](CLI::App& app) -> RunFn {
  auto a = std::make_shared<CalibrationArgs>();
  auto* sub = app.add_subcommand("token-calibration", "internal: approx token rules against a tokenizer.json");
  sub->group("");  // not listed in --help: bench/RESULTS.md "Token counts" runs it
  sub->add_option("--tokenizer", a->tokenizer, "Hugging Face tokenizer.json (byte-level BPE)")->required();
  sub->add_option("files", a->files, "chat JSONL files (system, user, assistant messages)")->required();
  sub->add_flag("--per-sample", a->per_sample, "also print every sample's counts");
  sub->footer("Exit status: 0 printed; 2 bad input (D012 tokenizer, D002/D003 chat files); 70 an internal error.");
  return [a] { return run(*a); };
});

}  // namespace
}  // namespace steptp::cli
