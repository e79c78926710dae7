// `steptp report` in a real browser: a tiny dataset, eval and two searches made here (--timer fixed), one page per
// directory and one with all of them, each rendered by headless Chromium (Debian `chromium`): the DOM after the
// inline script ran must carry its ok marker and no JavaScript-error marker, every plot figure must hold a drawn SVG,
// and the screenshot must not be blank. Also: a directory of no known kind and a missing gnuplot exit 2 with one line.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "../dataset/dataset_test_util.hpp"
#include "report/html.hpp"

namespace steptp::report {
namespace {
namespace fs = std::filesystem;
using dataset::dstest::run_cli;
using dataset::dstest::slurp;
using dataset::dstest::temp_dir;

/// The Chromium binary: $STEPTP_CHROMIUM, else chromium or chromium-browser on PATH; "" when none.
std::string chromium() {
  if (const char* e = std::getenv("STEPTP_CHROMIUM"); e && *e) return e;
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/snap/bin"})
    for (const char* name : {"chromium", "chromium-browser"})
      if (access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
  return "";
}

/// Runs argv with stdout to `out_file` and stderr to /dev/null, under a 90 s `timeout`; returns the exit status.
int run_to_file(std::vector<std::string> argv, const std::string& out_file) {
  argv.insert(argv.begin(), {"/usr/bin/timeout", "90"});
  std::vector<char*> v;
  for (auto& s : argv) v.push_back(s.data());
  v.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null_fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(null_fd, 2);
    execv(v[0], v.data());
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

struct Rendered {
  std::string dom;
  std::uintmax_t png_bytes = 0;
};

/// The DOM after the page's scripts ran (--dump-dom after 2 s of virtual time) and the size of a 1200x3000
/// screenshot written to `png`.
Rendered render(const std::string& html, const std::string& png, const std::string& work) {
  const std::string chrome = chromium();
  const std::vector<std::string> common{chrome, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                                        "--user-data-dir=" + work + "/chromium-profile"};
  Rendered r;
  auto args = common;
  args.insert(args.end(), {"--virtual-time-budget=2000", "--dump-dom", "file://" + html});
  EXPECT_EQ(run_to_file(args, work + "/dom.html"), 0) << html;
  r.dom = slurp(work + "/dom.html");
  args = common;
  args.insert(args.end(), {"--screenshot=" + png, "--window-size=1200,3000", "file://" + html});
  EXPECT_EQ(run_to_file(args, work + "/screenshot.log"), 0) << html;
  r.png_bytes = fs::exists(png) ? fs::file_size(png) : 0;
  return r;
}

/// Checks one rendered report: script ran without error, every plot figure holds an SVG with drawn paths, the
/// screenshot is not blank (several times the bytes of a blank page's).
void expect_good_page(const Rendered& r, std::uintmax_t blank_png, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_NE(r.dom.find("data-js-ok=\"1\""), std::string::npos) << "the inline script did not finish";
  EXPECT_EQ(r.dom.find("data-js-error=\"1\""), std::string::npos) << "JavaScript error";
  EXPECT_EQ(r.dom.find("id=\"js-error\""), std::string::npos) << "JavaScript error";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.dom, m, std::regex("data-plots=\"([0-9]+)\""))) << "no plot count on the page";
  const int declared = std::stoi(m[1]);
  EXPECT_GT(declared, 0);
  int figures = 0;
  for (std::size_t at = r.dom.find("<figure class=\"plot\""); at != std::string::npos;
       at = r.dom.find("<figure class=\"plot\"", at + 1)) {
    ++figures;
    const std::size_t end = r.dom.find("</figure>", at);
    ASSERT_NE(end, std::string::npos);
    const std::string fig = r.dom.substr(at, end - at);
    const std::size_t name_at = fig.find("data-plot=\"") + 11;
    const std::string name = fig.substr(name_at, fig.find('"', name_at) - name_at);
    EXPECT_NE(fig.find("<svg"), std::string::npos) << name;
    // gnuplot draws axes, boxes and curves as <path d='...'>; an empty plot has none beyond its frame
    int paths = 0;
    for (std::size_t p = fig.find("<path"); p != std::string::npos; p = fig.find("<path", p + 1)) ++paths;
    EXPECT_GE(paths, 3) << name << " has no drawing";
    EXPECT_NE(fig.find("</svg>"), std::string::npos) << name;
  }
  EXPECT_EQ(figures, declared);
  EXPECT_GT(r.png_bytes, 3 * blank_png) << "the screenshot looks blank";
}

TEST(ReportBrowserSlow, DatasetEvalSearchPagesRenderInChromium) {
  ASSERT_FALSE(chromium().empty()) << "headless Chromium is needed (Debian package chromium; `make deps`)";
  const std::string d = temp_dir("report");
  const std::string tasks = dataset::dstest::write_tiny_tasks(d);
  const std::string ds = d + "/ds", ev = d + "/ev", sg = d + "/search-greedy", sm = d + "/search-mcts";
  ASSERT_EQ(run_cli({"generate", "--tasks", tasks, "--out", ds, "--timer", "fixed", "--no-progress",
                     "--min-per-strategy", "2"},
                    d),
            0)
      << slurp(d + "/log.txt");
  ASSERT_EQ(run_cli({"eval", ds, "--policy", "random", "--samples", "2", "--timer", "fixed", "--out", ev, "--no-progress"}, d),
            0)
      << slurp(d + "/log.txt");
  for (const auto& [algo, out] : {std::pair{"greedy", sg}, std::pair{"mcts", sm}})
    ASSERT_EQ(run_cli({"search", "--tasks", tasks, "--policy", "random", "--timer", "fixed", "--proposals", "4",
                       "--measurements", "2", "--algorithm", algo, "--out", out, "--no-progress"},
                      d),
              0)
        << slurp(d + "/log.txt");
  // a blank page's screenshot, for the "not blank" check
  {
    std::ofstream(d + "/blank.html") << "<!DOCTYPE html><html><body></body></html>\n";
  }
  const Rendered blank = render(d + "/blank.html", d + "/blank.png", d);
  ASSERT_GT(blank.png_bytes, 0u) << "chromium wrote no screenshot";

  const std::vector<std::pair<std::string, std::vector<std::string>>> pages{
      {"dataset", {ds}}, {"eval", {ev}}, {"search", {sg}}, {"all", {ds, ev, sg, sm}}};
  for (const auto& [name, dirs] : pages) {
    const std::string html = d + "/" + name + ".html";
    std::vector<std::string> args{"report"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    args.insert(args.end(), {"-o", html});
    fs::remove(d + "/log.txt");
    ASSERT_EQ(run_cli(args, d), 0) << slurp(d + "/log.txt");
    EXPECT_EQ(slurp(d + "/log.txt"), "report: " + html + "\n");
    const std::string text = slurp(html);
    // self-contained: no external resource is referenced
    for (const char* ext : {"src=\"http", "href=\"http", "src='http", "@import", "<link "})
      EXPECT_EQ(text.find(ext), std::string::npos) << name << ": " << ext;
    const Rendered r = render(html, d + "/" + name + ".png", d);
    expect_good_page(r, blank.png_bytes, name);
    if (name == "dataset") {
      for (const char* plot : {"dataset-funnel", "dataset-per-strategy", "dataset-per-family", "dataset-speedups",
                               "dataset-tokens", "dataset-splits"})
        EXPECT_NE(r.dom.find(std::string("data-plot=\"") + plot + "\""), std::string::npos) << plot;
      EXPECT_NE(r.dom.find("flashattention_wo_tiling"), std::string::npos);  // all 43 strategies are listed
      EXPECT_NE(r.dom.find("Shortcut-baseline audit"), std::string::npos);
      EXPECT_NE(r.dom.find("before (LEIR)"), std::string::npos);
    }
    if (name == "eval") {
      for (const char* plot : {"eval-funnel", "eval-per-strategy", "eval-speedups"})
        EXPECT_NE(r.dom.find(std::string("data-plot=\"") + plot + "\""), std::string::npos) << plot;
    }
    if (name == "search") {
      EXPECT_NE(r.dom.find("data-plot=\"search-speedups\""), std::string::npos);
      EXPECT_NE(r.dom.find("data-plot=\"search-fast_p"), std::string::npos);
      EXPECT_NE(r.dom.find("Best path of each task"), std::string::npos);
    }
    if (name == "all") {
      EXPECT_NE(r.dom.find("data-plot=\"fast_p-all\""), std::string::npos);
    }
  }
  // the tables sort: a click on a header orders the rows by that column (numbers numerically), a second reverses
  {
    const std::string probe =
        "<script>window.addEventListener('load',function(){var th=document.querySelector('th');th.click();"
        "var a=Array.from(document.querySelectorAll('tbody td')).map(function(t){return t.textContent}).join(',');"
        "th.click();var b=Array.from(document.querySelectorAll('tbody td')).map(function(t){return t.textContent})"
        ".join(',');document.documentElement.setAttribute('data-sorted',a+'|'+b);});</script>";
    std::ofstream(d + "/sort.html") << page("sort", table({"n"}, {{"10"}, {"9.5"}, {"100"}}) + probe, 0);
  }
  const Rendered sorted = render(d + "/sort.html", d + "/sort.png", d);
  EXPECT_NE(sorted.dom.find("data-sorted=\"9.5,10,100|100,10,9.5\""), std::string::npos) << sorted.dom.substr(0, 400);
  // the error marker works: a page whose script throws is caught by the same check
  {
    std::ofstream(d + "/broken.html") << page("broken", "<script>no_such_function();</script>", 0);
  }
  const Rendered broken = render(d + "/broken.html", d + "/broken.png", d);
  EXPECT_NE(broken.dom.find("data-js-error=\"1\""), std::string::npos) << broken.dom.substr(0, 400);
  fs::remove_all(d);
}

TEST(ReportCliSlow, BadDirectoryAndMissingGnuplotExitTwoWithOneLine) {
  const std::string d = temp_dir("report-bad");
  const std::string bogus = d + "/not-a-run";
  fs::create_directories(bogus);
  EXPECT_EQ(run_cli({"report", bogus, "-o", d + "/r.html"}, d), 2);
  std::string err = slurp(d + "/log.txt");
  EXPECT_NE(err.find("D005 at " + bogus + ": not a steptp dataset, eval or search directory"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(d + "/r.html"));
  fs::remove(d + "/log.txt");
  EXPECT_EQ(run_cli({"report", d + "/missing", "-o", d + "/r.html"}, d), 2);
  err = slurp(d + "/log.txt");
  EXPECT_NE(err.find("D001 at " + d + "/missing: no such directory"), std::string::npos) << err;
  // gnuplot missing: a clear error naming the package
  const std::string tasks = dataset::dstest::write_tiny_tasks(d);
  ASSERT_EQ(run_cli({"generate", "--tasks", tasks, "--out", d + "/ds", "--no-measure", "--no-progress"}, d), 0);
  fs::remove(d + "/log.txt");
  setenv("STEPTP_GNUPLOT", (d + "/no-gnuplot-here").c_str(), 1);
  const int rc = run_cli({"report", d + "/ds", "-o", d + "/r.html"}, d);
  unsetenv("STEPTP_GNUPLOT");
  EXPECT_EQ(rc, 2);
  err = slurp(d + "/log.txt");
  EXPECT_NE(err.find("gnuplot not found"), std::string::npos) << err;
  EXPECT_NE(err.find("gnuplot-nox"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(d + "/r.html"));
  fs::remove_all(d);
}

}  // namespace
}  // namespace steptp::report
