// The dataset card OUT/README.md (issue #15 part 3, src/dataset/card.hpp): its YAML header, read by a real YAML
// parser (python3 + PyYAML, Debian python3-yaml), names every data file present and only those, with the split
// names and chat features that `datasets.load_dataset` and the Hub expect.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "dataset/export.hpp"
#include "dataset_test_util.hpp"

using namespace steptp::dataset::dstest;
using steptp::core::ojson;
namespace fs = std::filesystem;

namespace {

/// The YAML header of a dataset card (between the first two `---` lines), parsed by PyYAML and returned as JSON.
ojson card_header(const std::string& card_path, const std::string& scratch) {
  std::string card = slurp(card_path);
  EXPECT_EQ(card.rfind("---\n", 0), 0u) << "a dataset card starts with its YAML header";
  auto end = card.find("\n---\n", 4);
  EXPECT_NE(end, std::string::npos);
  std::ofstream(scratch) << card.substr(4, end - 4 + 1);
  const std::string cmd = "python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' " +
                          scratch + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = pclose(p);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "PyYAML (python3-yaml) could not read the header: " << out;
  return ojson::parse(out);
}

std::int64_t line_count(const std::string& path) {
  std::int64_t n = 0;
  std::ifstream f(path);
  for (std::string l; std::getline(f, l);) ++n;
  return n;
}

}  // namespace

TEST(DatasetCardSlow, YamlHeaderListsExactlyTheDataFiles) {
  std::string d = temp_dir("card");
  std::string tasks = write_tiny_tasks(d);
  const std::string out = d + "/o";
  ASSERT_EQ(run_cli(tiny_args(tasks, out), d), 0);
  ASSERT_TRUE(fs::exists(out + "/README.md"));
  ojson y = card_header(out + "/README.md", d + "/header.yaml");
  ASSERT_TRUE(y.contains("configs")) << y.dump();
  // every data_files path exists; together they are every JSONL file of chat/, archive/ and eval/
  std::set<std::string> listed, present;
  std::map<std::string, ojson> configs;
  bool has_default = false;
  for (const auto& c : y["configs"]) {
    configs[c["config_name"].get<std::string>()] = c;
    if (c.value("default", false)) {
      EXPECT_EQ(c["config_name"], "chat");
      has_default = true;
    }
    std::set<std::string> splits;
    for (const auto& f : c["data_files"]) {
      const std::string path = f["path"];
      EXPECT_TRUE(fs::is_regular_file(fs::path(out) / path)) << path;
      EXPECT_TRUE(listed.insert(path).second) << path << " listed twice";
      EXPECT_TRUE(splits.insert(f["split"].get<std::string>()).second) << "split named twice in " << c.dump();
    }
  }
  EXPECT_TRUE(has_default);
  for (const char* dir : {"chat", "archive", "eval"})
    for (const auto& e : fs::directory_iterator(fs::path(out) / dir))
      if (e.path().extension() == ".jsonl") present.insert(std::string(dir) + "/" + e.path().filename().string());
  EXPECT_EQ(listed, present);
  // the chat config: Hub split names, files in split order, features and example counts of the files present
  ASSERT_TRUE(configs.count("chat"));
  std::vector<std::pair<std::string, std::string>> chat_files;
  for (const auto& f : configs["chat"]["data_files"]) chat_files.emplace_back(f["split"].get<std::string>(), f["path"].get<std::string>());
  EXPECT_EQ(chat_files, (std::vector<std::pair<std::string, std::string>>{
                            {"train", "chat/train.jsonl"}, {"validation", "chat/val.jsonl"}, {"test", "chat/test.jsonl"}}));
  ASSERT_TRUE(y.contains("dataset_info"));
  const ojson& info = y["dataset_info"][0];
  EXPECT_EQ(info["config_name"], "chat");
  EXPECT_EQ(info["features"], ojson::parse(R"([{"name": "messages", "list": [{"name": "role", "dtype": "string"},
                                                {"name": "content", "dtype": "string"}]}])"));
  std::map<std::string, std::int64_t> examples;
  for (const auto& s : info["splits"]) examples[s["name"].get<std::string>()] = s["num_examples"].get<std::int64_t>();
  EXPECT_EQ(examples["train"], line_count(out + "/chat/train.jsonl"));
  EXPECT_EQ(examples["validation"], line_count(out + "/chat/val.jsonl"));
  EXPECT_EQ(examples["test"], line_count(out + "/chat/test.jsonl"));
  EXPECT_GT(examples["train"], 0);
  // the records match the declared features: {"messages": [{"role", "content"} strings]}
  for (const auto& l : read_json_lines(out + "/chat/train.jsonl")) {
    ASSERT_EQ(l.size(), 1u);
    for (const auto& m : l["messages"]) {
      EXPECT_EQ(m.size(), 2u);
      EXPECT_TRUE(m["role"].is_string() && m["content"].is_string());
    }
  }
  // the license is the user's to choose: no license key, a commented one to fill in
  EXPECT_FALSE(y.contains("license"));
  EXPECT_NE(slurp(out + "/README.md").find("\n# license: "), std::string::npos);
  // the card is part of the dataset: listed in the manifest with its SHA-256
  EXPECT_TRUE(steptp::dataset::verify_manifest(out).empty());
  EXPECT_TRUE(ojson::parse(slurp(out + "/manifest.json"))["files"].contains("README.md"));
  fs::remove_all(d);
}
