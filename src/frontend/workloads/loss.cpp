// Loss family: KernelBench level-1 losses (scalar outputs).
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

void add_loss(std::vector<Workload>& v) {
  v.push_back(make("Hingeloss", "level1", "loss", {{"batch", 128, 1, 8192, 16}}, dt_float(),
                   [](Graph& g, const Params& p) {
                     T pr = g.input({P(p, "batch"), 1}), tg = g.input({P(p, "batch"), 1});
                     T d = binary(g, pr, tg, "*");
                     T e = lit_binary(g, "1", "-", d);
                     T f = unary(g, e, relu_e);
                     g.mark_output(mean(g, f, {0, 1}, false));
                   }));
  v.push_back(make("KLDivLoss", "level1", "loss", bd(128, 1024), dt_float(), [](Graph& g, const Params& p) {
    T pr = g.input({P(p, "batch"), P(p, "dim")}), tg = g.input({P(p, "batch"), P(p, "dim")});
    T lg = unary(g, pr, [](const std::string& x) { return "log(" + x + ")"; });
    g.mark_output(kl_div_batchmean(g, lg, tg));
  }));
  v.push_back(make("CrossEntropyLoss", "level1", "loss", {{"batch", 1024, 1, 8192, 16}, {"classes", 10, 2, 1000, 5}},
                   dt_float(), [](Graph& g, const Params& p) {
                     T x = g.input({P(p, "batch"), P(p, "classes")});
                     T t = g.input({P(p, "batch")}, ir::DType::I64);
                     g.mark_output(cross_entropy(g, x, t));
                   }));
  v.push_back(make("MSELoss", "level1", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    T pr = g.input({P(p, "batch"), P(p, "dim")}), tg = g.input({P(p, "batch"), P(p, "dim")});
    T d = map(g, {pr, tg}, [](const auto& r) { return "(" + r[0] + "-" + r[1] + ")**2"; });
    g.mark_output(mean(g, d, {0, 1}, false));
  }));
  v.push_back(make("HuberLoss", "level1", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    // smooth_l1_loss, beta 1: 0.5*d*d if |d|<1 else |d|-0.5
    T pr = g.input({P(p, "batch"), P(p, "dim")}), tg = g.input({P(p, "batch"), P(p, "dim")});
    T d = binary(g, pr, tg, "-");
    T h = unary(g, d, [](const std::string& x) {
      return "if_then_else(abs(" + x + ")<1,0.5*" + x + "*" + x + ",abs(" + x + ")-0.5)";
    });
    g.mark_output(mean(g, h, {0, 1}, false));
  }));
  v.push_back(make("CosineSimilarityLoss", "level1", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    T pr = g.input({P(p, "batch"), P(p, "dim")}), tg = g.input({P(p, "batch"), P(p, "dim")});
    T dot = map(g, {pr, tg}, [](const auto& r) { return r[0] + "*" + r[1]; });
    T sd = sum(g, dot, {1}, false);
    T pp = unary(g, pr, [](const std::string& x) { return x + "*" + x; });
    T sp = sum(g, pp, {1}, false);
    T tt = unary(g, tg, [](const std::string& x) { return x + "*" + x; });
    T st = sum(g, tt, {1}, false);
    T cs = map(g, {sd, sp, st}, [](const auto& r) {
      return "1-" + r[0] + "/max(sqrt(" + r[1] + ")*sqrt(" + r[2] + "),1e-08)";
    });
    g.mark_output(mean(g, cs, {0}, false));
  }));
  v.push_back(make("TripletMarginLoss", "level1", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    // mean(max(||a-p+eps||_2 - ||a-n+eps||_2 + 1.0, 0)), eps 1e-6
    Shape s{P(p, "batch"), P(p, "dim")};
    T a = g.input(s), po = g.input(s), ne = g.input(s);
    T dp = map(g, {a, po}, [](const auto& r) { return "(" + r[0] + "-" + r[1] + "+1e-06)**2"; });
    T sp = sum(g, dp, {1}, false);
    T dn = map(g, {a, ne}, [](const auto& r) { return "(" + r[0] + "-" + r[1] + "+1e-06)**2"; });
    T sn = sum(g, dn, {1}, false);
    T l = map(g, {sp, sn}, [](const auto& r) { return "max(sqrt(" + r[0] + ")-sqrt(" + r[1] + ")+1.0,0)"; });
    g.mark_output(mean(g, l, {0}, false));
  }));
  v.push_back(make("L1Loss", "custom", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    T pr = g.input({P(p, "batch"), P(p, "dim")}), tg = g.input({P(p, "batch"), P(p, "dim")});
    T d = map(g, {pr, tg}, [](const auto& r) { return "abs(" + r[0] + "-" + r[1] + ")"; });
    g.mark_output(mean(g, d, {0, 1}, false));
  }));
  v.push_back(make("BCEWithLogitsLoss", "custom", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")}), y = g.input({P(p, "batch"), P(p, "dim")});
    T l = map(g, {x, y}, [](const auto& r) {
      return "max(" + r[0] + ",0)-" + r[0] + "*" + r[1] + "+log(1+exp(-abs(" + r[0] + ")))";
    });
    g.mark_output(mean(g, l, {0, 1}, false));
  }));
  v.push_back(make("NLLLoss", "custom", "loss", {{"batch", 1024, 1, 8192, 16}, {"classes", 10, 2, 1000, 5}},
                   dt_float(), [](Graph& g, const Params& p) {
                     // mean of -x[i, t_i] over the batch (inputs are log-probabilities)
                     T x = g.input({P(p, "batch"), P(p, "classes")});
                     T t = g.input({P(p, "batch")}, ir::DType::I64);
                     T y = g.node({});
                     g.step([x, t, y](Graph& gg) {
                       Buf xb = gg.buf(x), tb = gg.buf(t), yb = gg.buf(y);
                       std::string yr = ref(yb, {});
                       gg.nest({{'B', xb.shape[0], "tx"}}, {yr + "=" + yr + "-" + ref(xb, {"tx", ref(tb, {"tx"})}) +
                                                               "/" + ilit(xb.shape[0])});
                     });
                     g.mark_output(y);
                   }));
}

}  // namespace steptp::frontend::wl
