#include "report/html.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "ir/task.hpp"
#include "runtime/sandbox.hpp"

namespace fs = std::filesystem;

namespace steptp::report {

std::string esc(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  return o;
}

std::string num(const ojson& v, int digits) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (!v.is_number()) return "–";
  const double d = v.get<double>();
  if (!std::isfinite(d)) return "–";
  if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{:.0f}", d);
  return fmt::format("{:.{}g}", d, digits);
}

std::string pct(const ojson& v) {
  if (!v.is_number()) return "n/a";
  return fmt::format("{:.1f}%", 100.0 * v.get<double>());
}

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::string& caption) {
  std::string h = "<table class=\"sortable\">";
  if (!caption.empty()) h += "<caption>" + esc(caption) + "</caption>";
  h += "<thead><tr>";
  for (const auto& c : header) h += "<th title=\"click to sort\">" + c + "</th>";
  h += "</tr></thead><tbody>\n";
  for (const auto& r : rows) {
    h += "<tr>";
    for (const auto& c : r) h += "<td>" + c + "</td>";
    h += "</tr>\n";
  }
  return h + "</tbody></table>\n";
}

std::string leir_layout(std::string_view leir) {
  std::string o;
  int depth = 0;
  bool line_start = true;
  auto indent = [&] {
    if (line_start) o.append(std::size_t(2 * std::max(depth, 0)), ' ');
    line_start = false;
  };
  for (std::size_t i = 0; i < leir.size(); ++i) {
    const char c = leir[i];
    if (c == '\n' || c == ' ') continue;
    if (c == ']') --depth;
    indent();
    o += c;
    if (c == '[') {
      ++depth;
      o += '\n';
      line_start = true;
    } else if (c == ';') {
      o += '\n';
      line_start = true;
    }
  }
  return o;
}

std::string gp_str(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string datablock(const std::string& name, const std::vector<std::vector<std::string>>& rows) {
  std::string o = "$" + name + " << EOD\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) o += (i ? " " : "") + r[i];
    o += "\n";
  }
  return o + "EOD\n";
}

namespace {

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t a = 0;
  while (a <= p.size()) {
    std::size_t b = p.find(':', a);
    if (b == std::string::npos) b = p.size();
    const fs::path cand = fs::path(p.substr(a, b - a).empty() ? "." : p.substr(a, b - a)) / name;
    if (access(cand.c_str(), X_OK) == 0 && fs::is_regular_file(cand)) return fs::absolute(cand).string();
    a = b + 1;
  }
  return "";
}

// Makes the element ids of one inlined SVG unique in the page (gnuplot names its defs the same in every file).
std::string prefix_ids(std::string svg, const std::string& pre) {
  for (const std::string& key : {std::string("id='"), std::string("id=\""), std::string("href='#"),
                                 std::string("href=\"#"), std::string("url(#")}) {
    std::size_t at = 0;
    while ((at = svg.find(key, at)) != std::string::npos) {
      svg.insert(at + key.size(), pre);
      at += key.size() + pre.size();
    }
  }
  return svg;
}

}  // namespace

Plotter::Plotter() {
  const char* env = std::getenv("STEPTP_GNUPLOT");
  exe_ = env && *env ? std::string(env) : find_on_path("gnuplot");
  if (exe_.empty() || access(exe_.c_str(), X_OK) != 0)
    throw std::runtime_error("gnuplot not found" + (env && *env ? " at $STEPTP_GNUPLOT=" + std::string(env) : " on PATH") +
                             ": steptp report draws its plots with gnuplot (Debian package gnuplot-nox)");
  exe_ = fs::absolute(exe_).string();  // the sandbox runs argv[0] as given, without a PATH search
  static std::atomic<int> n{0};
  work_dir_ = (fs::temp_directory_path() / fmt::format("steptp-report-{}-{}", getpid(), n++)).string();
}

Plotter::~Plotter() {
  std::error_code ec;
  fs::remove_all(work_dir_, ec);
}

std::string Plotter::svg(const std::string& name, const std::string& title, const std::string& body, int width,
                         int height) {
  fs::create_directories(work_dir_);
  const int id = count_++;
  const std::string script = fmt::format("{}/plot{}.gp", work_dir_, id), out = fmt::format("{}/plot{}.svg", work_dir_, id);
  ir::write_file_atomic(script, fmt::format("set terminal svg size {},{} noenhanced font 'sans,10' background '#ffffff'\n"
                                            "set output {}\nset encoding utf8\n{}\nunset output\n",
                                            width, height, gp_str(out), body));
  const runtime::SandboxResult r = runtime::run_sandboxed({exe_, script}, {}, 60.0, 0);
  std::error_code ec;
  std::string svg_text = fs::exists(out) ? ir::read_file(out) : "";
  fs::remove(script, ec);
  fs::remove(out, ec);
  if (!r.ok || svg_text.find("<svg") == std::string::npos)
    throw std::runtime_error(fmt::format("gnuplot failed on plot '{}': {}", name, r.reason.empty() ? r.output : r.reason));
  svg_text = prefix_ids(svg_text.substr(svg_text.find("<svg")), fmt::format("p{}_", id));
  // gnuplot's <title> elements become hover tooltips such as "$sp using (1):2"; the figure caption says it better
  for (std::size_t a; (a = svg_text.find("<title>")) != std::string::npos;) {
    const std::size_t b = svg_text.find("</title>", a);
    if (b == std::string::npos) break;
    svg_text.erase(a, b + 8 - a);
  }
  return fmt::format("<figure class=\"plot\" data-plot=\"{}\">{}<figcaption>{}</figcaption></figure>\n", esc(name),
                     svg_text, esc(title));
}

std::string log_yrange(const std::vector<double>& values, double pad_one) {
  double lo = 0, hi = 0;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) {
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (hi == 0) return "";
  lo /= 1.5;
  hi *= 1.5;
  if (pad_one > 0) lo = std::min(lo, 1.0 / pad_one), hi = std::max(hi, pad_one);
  return fmt::format("set yrange [{:.6g}:{:.6g}]\n", lo, hi);
}

std::string factor_xrange(const std::vector<std::vector<std::string>>& rows) {
  std::set<std::string> f;
  for (const auto& r : rows)
    if (!r.empty()) f.insert(r[0]);
  return fmt::format("set xrange [0.5:{}.5]\n", f.size());
}

std::string page(const std::string& title, const std::string& body, int plots) {
  static const char* kStyle = R"CSS(
body{font-family:sans-serif;font-size:14px;margin:16px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:2px;margin-top:28px}h3{font-size:15px}
.cols{display:flex;gap:24px;align-items:flex-start;overflow-x:auto}.cols>section{flex:1 1 0;min-width:560px;overflow-x:auto}
table{border-collapse:collapse;margin:8px 0;font-size:12px}caption{text-align:left;font-weight:bold;padding:4px 0}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}th{background:#eee;cursor:pointer;user-select:none}
th.asc::after{content:" \25B2"}th.desc::after{content:" \25BC"}tr:nth-child(even) td{background:#fafafa}
.zero{color:#aaa}pre{margin:0;font-size:11px;white-space:pre-wrap;word-break:break-all;max-height:360px;overflow:auto;min-width:360px}
td code{display:inline-block;max-width:260px;word-break:break-all}
figure.plot{margin:8px 0}figure.plot svg{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:12px;color:#555}
.kind{font-size:12px;color:#fff;background:#357;border-radius:3px;padding:1px 6px;margin-right:6px}
.note{color:#555;font-size:12px}ol.path{margin:2px 0;padding-left:20px}
#js-error{color:#fff;background:#b00;padding:8px}
)CSS";
  // The error marker is registered before anything else; the ok marker is set only when the table script ran.
  static const char* kOnError = R"JS(window.onerror=function(m,s,l){var d=document.getElementById('js-error')||document.createElement('div');d.id='js-error';d.textContent='JavaScript error: '+m+' (line '+l+')';(document.body||document.documentElement).appendChild(d);document.documentElement.setAttribute('data-js-error','1');};)JS";
  static const char* kScript = R"JS(
(function(){
  function key(td){var t=td.textContent.trim();var v=parseFloat(t.replace(/[%,]/g,''));return isNaN(v)||!/^[-+0-9.]/.test(t)?[1,t.toLowerCase()]:[0,v];}
  function cmp(a,b){if(a[0]!==b[0])return a[0]-b[0];return a[1]<b[1]?-1:a[1]>b[1]?1:0;}
  document.querySelectorAll('table.sortable').forEach(function(tb){
    var ths=tb.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths,function(th,i){th.addEventListener('click',function(){
      var asc=!th.classList.contains('asc');
      Array.prototype.forEach.call(ths,function(h){h.classList.remove('asc','desc');});
      th.classList.add(asc?'asc':'desc');
      var body=tb.tBodies[0],rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){var r=cmp(key(a.cells[i]),key(b.cells[i]));return asc?r:-r;});
      rows.forEach(function(r){body.appendChild(r);});
    });});
  });
  var figs=document.querySelectorAll('figure.plot');
  document.documentElement.setAttribute('data-plots-found',String(figs.length));
  document.documentElement.setAttribute('data-js-ok','1');
})();
)JS";
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\" data-plots=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<script>{}</script>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n{}\n<script>{}</script>\n</body>\n</html>\n",
      plots, esc(title), kOnError, kStyle, esc(title), body, kScript);
}

}  // namespace steptp::report
