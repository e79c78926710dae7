// Byte-level BPE from a Hugging Face tokenizer.json (bpe_tokenizer.hpp): loading with shape checks, added-token
// splitting, pre-tokenization (bpe_pretokenize.cpp) and the merge loop with a word cache.
#include "step/bpe_tokenizer.hpp"

#include <array>
#include <limits>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "base/file_io.hpp"
#include "base/hash.hpp"

namespace steptp::core {

using json = nlohmann::json;

// The pattern of Qwen2's tokenizer.json (also Qwen2.5 and Qwen3), the only Split pattern accepted.
static constexpr const char* kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

struct BpeTokenizer::Impl {
  std::string sha;
  std::size_t vocab = 0;
  bool ignore_merges = false;
  std::array<std::int32_t, 256> byte_id{};
  std::unordered_map<std::string, std::int32_t> token_id;             // raw bytes -> id
  std::unordered_map<std::uint64_t, std::pair<std::int32_t, std::int32_t>> merges;  // (left, right) -> (rank, id)
  std::vector<std::pair<std::string, std::int32_t>> added;            // content, id
  std::array<bool, 256> added_first{};                                // first bytes of added tokens
  mutable std::mutex mu;
  mutable std::unordered_map<std::string, std::vector<std::int32_t>> cache;

  void bpe(std::string_view word, std::vector<std::int32_t>& out) const;
  void encode_plain(std::string_view text, std::vector<std::int32_t>& out) const;
};

namespace {

[[noreturn]] void unsupported(const std::string& where, const std::string& what) {
  const std::string msg = "not a supported byte-level BPE tokenizer.json: " + what;
  throw Error(Code::D012, msg, Location{0, where}, "D012 at " + where + ": " + msg);
}

/// GPT-2's bytes_to_unicode, inverted: code point -> byte (-1 for none). Every code point it uses is < 324.
std::array<int, 324> unicode_to_byte() {
  std::array<int, 324> inv;
  inv.fill(-1);
  int extra = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    inv[std::size_t(printable ? b : 256 + extra++)] = b;
  }
  return inv;
}

/// A byte-level token text (UTF-8 of the mapped code points) as raw bytes; false when it is not byte-level.
bool byte_level_decode(const std::string& tok, std::string& out) {
  static const std::array<int, 324> inv = unicode_to_byte();
  out.clear();
  for (std::size_t i = 0; i < tok.size();) {
    const auto b0 = static_cast<unsigned char>(tok[i]);
    char32_t c = b0;
    std::size_t len = 1;
    if (b0 >= 0xC0 && b0 < 0xE0 && i + 1 < tok.size()) {
      c = char32_t(((b0 & 0x1F) << 6) | (static_cast<unsigned char>(tok[i + 1]) & 0x3F));
      len = 2;
    } else if (b0 >= 0x80) {
      return false;
    }
    if (c >= inv.size() || inv[c] < 0) return false;
    out.push_back(char(inv[c]));
    i += len;
  }
  return true;
}

void check_pre_tokenizer(const json& pt, const std::string& where) {
  if (!pt.is_object() || pt.value("type", "") != "Sequence" || !pt.contains("pretokenizers") ||
      !pt["pretokenizers"].is_array() || pt["pretokenizers"].size() != 2)
    unsupported(where, "pre_tokenizer must be a Sequence of a Split (the Qwen2 pattern) and a ByteLevel");
  const json& split = pt["pretokenizers"][0];
  const json& bl = pt["pretokenizers"][1];
  if (split.value("type", "") != "Split" || !split.contains("pattern") || !split["pattern"].is_object() ||
      split["pattern"].value("Regex", "") != kQwen2Pattern)
    unsupported(where, "the pre_tokenizer's Split must use the Qwen2 regex pattern");
  if (split.value("behavior", "") != "Isolated" || split.value("invert", true))
    unsupported(where, "the pre_tokenizer's Split must have behavior Isolated and invert false");
  if (bl.value("type", "") != "ByteLevel" || bl.value("add_prefix_space", true) || bl.value("use_regex", true))
    unsupported(where, "the pre_tokenizer's second step must be ByteLevel without add_prefix_space and use_regex");
}

void check_model_flags(const json& m, const std::string& where) {
  if (!m.is_object() || m.value("type", "") != "BPE")
    unsupported(where, "model.type must be \"BPE\"");
  auto empty_or_null = [&](const char* k) {
    return !m.contains(k) || m[k].is_null() || (m[k].is_string() && m[k].get<std::string>().empty());
  };
  if (!empty_or_null("continuing_subword_prefix") || !empty_or_null("end_of_word_suffix") || !m.value("dropout", json()).is_null())
    unsupported(where, "model continuing_subword_prefix, end_of_word_suffix and dropout must be unset");
  if (m.contains("byte_fallback") && !m["byte_fallback"].is_null() && m["byte_fallback"].get<bool>())
    unsupported(where, "model.byte_fallback must be false");
  if (!m.contains("vocab") || !m["vocab"].is_object() || !m.contains("merges") || !m["merges"].is_array())
    unsupported(where, "model.vocab must be an object and model.merges an array");
}

void load_vocab(const json& v, BpeTokenizer::Impl& t, const std::string& where) {
  std::string raw;
  t.byte_id.fill(-1);
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_number_integer()) unsupported(where, "a vocab id is not an integer");
    if (!byte_level_decode(it.key(), raw)) unsupported(where, "vocab entry '" + it.key() + "' is not byte-level");
    const auto id = it.value().get<std::int32_t>();
    t.token_id[raw] = id;
    if (raw.size() == 1) t.byte_id[static_cast<unsigned char>(raw[0])] = id;
  }
  for (int b = 0; b < 256; ++b)
    if (t.byte_id[std::size_t(b)] < 0) unsupported(where, "the vocab lacks the token of byte " + std::to_string(b));
  t.vocab = v.size();
}

void load_merges(const json& ms, BpeTokenizer::Impl& t, const std::string& where) {
  std::string a, b, ra, rb;
  std::int32_t rank = 0;
  t.merges.reserve(ms.size());
  for (const auto& m : ms) {
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const auto sp = s.find(' ');
      if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
        unsupported(where, "merge '" + s + "' is not two tokens");
      a = s.substr(0, sp);
      b = s.substr(sp + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      unsupported(where, "a merge is neither \"a b\" nor [\"a\", \"b\"]");
    }
    if (!byte_level_decode(a, ra) || !byte_level_decode(b, rb)) unsupported(where, "merge '" + a + " " + b + "' is not byte-level");
    auto ia = t.token_id.find(ra), ib = t.token_id.find(rb), ic = t.token_id.find(ra + rb);
    if (ia == t.token_id.end() || ib == t.token_id.end() || ic == t.token_id.end())
      unsupported(where, "merge '" + a + " " + b + "' names a token that is not in the vocab");
    const std::uint64_t key = (std::uint64_t(std::uint32_t(ia->second)) << 32) | std::uint32_t(ib->second);
    t.merges.emplace(key, std::make_pair(rank++, ic->second));  // the first (lowest) rank of a pair wins
  }
}

void load_added(const json& j, BpeTokenizer::Impl& t, const std::string& where) {
  if (j.is_null()) return;
  if (!j.is_array()) unsupported(where, "added_tokens must be an array");
  for (const auto& a : j) {
    if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id") ||
        !a["id"].is_number_integer())
      unsupported(where, "an added token lacks its content or id");
    for (const char* flag : {"lstrip", "rstrip", "single_word"})
      if (a.value(flag, false)) unsupported(where, std::string("added token flag '") + flag + "' is not supported");
    std::string c = a["content"].get<std::string>();
    if (c.empty()) unsupported(where, "an added token is empty");
    t.added_first[static_cast<unsigned char>(c[0])] = true;
    t.added.emplace_back(std::move(c), a["id"].get<std::int32_t>());
  }
}

}  // namespace

BpeTokenizer::BpeTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BpeTokenizer::~BpeTokenizer() = default;

std::shared_ptr<const BpeTokenizer> BpeTokenizer::from_file(const std::string& path) {
  std::string text;
  try {
    text = ir::read_file(path);
  } catch (const std::exception& e) {  // E108 unreadable, E107 over the read limit
    const std::string msg = std::string("cannot read the tokenizer file: ") + e.what();
    throw Error(Code::D012, msg, Location{0, path}, "D012 at " + path + ": " + msg);
  }
  return from_json_text(text, path);
}

std::shared_ptr<const BpeTokenizer> BpeTokenizer::from_json_text(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) unsupported(where, "not a JSON object");
  auto impl = std::make_unique<Impl>();
  impl->sha = sha256_hex(text);
  try {
    if (!j.contains("model")) unsupported(where, "no model");
    const json& m = j["model"];
    check_model_flags(m, where);
    if (!j.contains("pre_tokenizer")) unsupported(where, "no pre_tokenizer");
    check_pre_tokenizer(j["pre_tokenizer"], where);
    const json norm = j.value("normalizer", json());
    if (!norm.is_null() && !(norm.is_object() && norm.value("type", "") == "NFC"))
      unsupported(where, "the normalizer must be null or NFC");
    impl->ignore_merges = m.value("ignore_merges", false);
    load_vocab(m["vocab"], *impl, where);
    load_merges(m["merges"], *impl, where);
    load_added(j.value("added_tokens", json()), *impl, where);
  } catch (const json::exception& e) {  // a mistyped member
    unsupported(where, e.what());
  }
  return std::shared_ptr<const BpeTokenizer>(new BpeTokenizer(std::move(impl)));
}

void BpeTokenizer::Impl::bpe(std::string_view word, std::vector<std::int32_t>& out) const {
  if (ignore_merges) {
    auto it = token_id.find(std::string(word));
    if (it != token_id.end()) {
      out.push_back(it->second);
      return;
    }
  }
  std::vector<std::int32_t> ids;
  ids.reserve(word.size());
  for (char c : word) ids.push_back(byte_id[static_cast<unsigned char>(c)]);
  while (ids.size() > 1) {
    std::int32_t best = std::numeric_limits<std::int32_t>::max(), best_id = -1;
    std::size_t at = 0;
    for (std::size_t k = 0; k + 1 < ids.size(); ++k) {
      auto it = merges.find((std::uint64_t(std::uint32_t(ids[k])) << 32) | std::uint32_t(ids[k + 1]));
      if (it != merges.end() && it->second.first < best) {
        best = it->second.first;
        best_id = it->second.second;
        at = k;
      }
    }
    if (best_id < 0) break;
    ids[at] = best_id;  // the leftmost pair of the lowest rank, as Hugging Face's merge order
    ids.erase(ids.begin() + std::ptrdiff_t(at) + 1);
  }
  out.insert(out.end(), ids.begin(), ids.end());
}

void BpeTokenizer::Impl::encode_plain(std::string_view text, std::vector<std::int32_t>& out) const {
  for (std::string_view w : pre_tokenize(text)) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = cache.find(std::string(w));
      if (it != cache.end()) {
        out.insert(out.end(), it->second.begin(), it->second.end());
        continue;
      }
    }
    std::vector<std::int32_t> ids;
    bpe(w, ids);
    out.insert(out.end(), ids.begin(), ids.end());
    std::lock_guard<std::mutex> lock(mu);
    if (cache.size() >= kMaxCachedWords) cache.clear();
    cache.emplace(std::string(w), std::move(ids));
  }
}

std::vector<std::int32_t> BpeTokenizer::encode(std::string_view text) const {
  std::vector<std::int32_t> out;
  std::size_t start = 0, i = 0;
  while (i < text.size()) {
    if (impl_->added_first[static_cast<unsigned char>(text[i])]) {
      const std::pair<std::string, std::int32_t>* best = nullptr;
      for (const auto& a : impl_->added)
        if (text.substr(i, a.first.size()) == a.first && (!best || a.first.size() > best->first.size())) best = &a;
      if (best) {
        impl_->encode_plain(text.substr(start, i - start), out);
        out.push_back(best->second);
        i += best->first.size();
        start = i;
        continue;
      }
    }
    ++i;
  }
  impl_->encode_plain(text.substr(start), out);
  return out;
}

std::int64_t BpeTokenizer::count(std::string_view text) const { return std::int64_t(encode(text).size()); }
const std::string& BpeTokenizer::sha256() const { return impl_->sha; }
std::size_t BpeTokenizer::vocab_size() const { return impl_->vocab; }

}  // namespace steptp::core
