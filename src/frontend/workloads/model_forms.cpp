// Operators in the algebraic forms that PyTorch's definitions and common model code write them in: log of a
// softmax, log-cosh, the KL divergences and the beta variance of torch.distributions, a CRF forward step (torchcrf),
// torch.lerp, the GRU cell's state update (nn.GRUCell) and a rational activation (Boullé et al. 2020). They are the
// catalogue's sites of the algebraic strategies that no other workload offers (issue #47 item 3): expand_log,
// logsimp, expand_powsimp, collect, cancellation and apart (STRATEGIES.md §11 entries 25-33; the log of softmax's
// expand_log site is refused, entry 31). Inputs that the real
// operator only takes positive (probabilities, standard deviations, a precision) are declared so
// (ir::KnownBuffer::range), which sign analysis (STRATEGIES.md §9.4) needs to prove the domain conditions of the
// log, power and cancelling rewrites; no other input is. Registered after every other family file, so the built-in
// default selection (the first workloads of each family) is unchanged.
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {

/// torch.log(torch.softmax(x, dim=1)): the max and sum-exp nests of softmax, then log of the quotient.
void log_of_softmax(Graph& g, const Params& p) {
  T x = g.input({P(p, "batch"), P(p, "dim")});
  T y = g.node(g.shape(x));
  g.step([x, y](Graph& gg) {
    Buf xb = gg.buf(x), yb = gg.buf(y);
    Buf m = gg.temp({xb.shape[0]}), s = gg.temp({xb.shape[0]});
    Grid gr = grid(xb.shape);
    std::string xr = ref(xb, gr.idx), mr = ref(m, {"tx"}), sr = ref(s, {"tx"});
    gg.nest(gr.loops, {mr + "=max(" + mr + "," + xr + ")"});
    gg.nest(gr.loops, {sr + "=" + sr + "+exp(" + xr + "-" + mr + ")"});
    gg.nest(gr.loops, {ref(yb, gr.idx) + "=log(exp(" + xr + "-" + mr + ")/" + sr + ")"});
  });
  g.mark_output(y);
}

/// One step of the linear-chain CRF forward algorithm (torchcrf CRF._compute_normalizer):
/// next[b,j] = logsumexp_i(score[b,i] + transitions[i,j] + emissions[b,j]), without a max shift (as logsumexp).
void crf_forward_step(Graph& g, const Params& p) {
  const std::int64_t b = P(p, "batch"), n = P(p, "tags");
  T score = g.input({b, n}), trans = g.input({n, n}), emis = g.input({b, n});
  T y = g.node({b, n});
  g.step([score, trans, emis, y](Graph& gg) {
    Buf sb = gg.buf(score), tb = gg.buf(trans), eb = gg.buf(emis), yb = gg.buf(y);
    Buf acc = gg.temp(yb.shape);
    Grid gr = grid({sb.shape[0], sb.shape[1], sb.shape[1]});  // tx = b, a = i, c = j
    const std::string b_ = gr.idx[0], i = gr.idx[1], j = gr.idx[2];
    std::string ar = ref(acc, {b_, j});
    gg.nest(gr.loops, {ar + "=" + ar + "+exp(" + ref(sb, {b_, i}) + "+" + ref(tb, {i, j}) + "+" + ref(eb, {b_, j}) +
                       ")"});
    Grid g2 = grid(yb.shape);
    gg.nest(g2.loops, {ref(yb, g2.idx) + "=log(" + ref(acc, g2.idx) + ")"});
  });
  g.mark_output(y);
}

/// nn.GRUCell: gi = x W_ih^T + b_ih, gh = h W_hh^T + b_hh (gates r, z, n stacked), r = σ(gi_r + gh_r),
/// z = σ(gi_z + gh_z), n = tanh(gi_n + r*gh_n), h' = (1-z)*n + z*h.
void gru_cell(Graph& g, const Params& p) {
  const std::int64_t b = P(p, "batch"), in = P(p, "input"), h = P(p, "hidden");
  T x = g.input({b, in}), hx = g.input({b, h});
  T wih = g.param({3 * h, in}), whh = g.param({3 * h, h}), bih = g.param({3 * h}), bhh = g.param({3 * h});
  T gi = linear(g, x, wih, bih), gh = linear(g, hx, whh, bhh);
  auto gate = [&](T t, std::int64_t k) { return slice(g, t, 1, k * h, (k + 1) * h); };
  T r = unary(g, binary(g, gate(gi, 0), gate(gh, 0), "+"), sigmoid_e);
  T z = unary(g, binary(g, gate(gi, 1), gate(gh, 1), "+"), sigmoid_e);
  T n = tanh(g, map(g, {gate(gi, 2), r, gate(gh, 2)}, [](const auto& v) { return v[0] + "+" + v[1] + "*" + v[2]; }));
  g.mark_output(map(g, {z, n, hx}, [](const auto& v) { return "(1-" + v[0] + ")*" + v[1] + "+" + v[0] + "*" + v[2]; }));
}

/// A row-wise loss term f(inputs) summed over dim 1 and averaged over the batch (`.sum(-1).mean()`).
T batch_mean_of_row_sums(Graph& g, T terms) { return mean(g, sum(g, terms, {1}, false), {0}, false); }

}  // namespace

void add_model_forms(std::vector<Workload>& v) {
  v.push_back(make("LogSoftmax_log_of_softmax", "custom", "softmax", batch_dim_params(), dt_float(), log_of_softmax));
  v.push_back(make("LogCoshLoss", "custom", "loss", bd(128, 4096), dt_float(), [](Graph& g, const Params& p) {
    // mean(log(cosh(pred - target))), cosh(d) = (exp(d) + exp(-d))/2 (torch.cosh; Keras LogCosh)
    T pr = g.input({P(p, "batch"), P(p, "dim")}), tg = g.input({P(p, "batch"), P(p, "dim")});
    T l = map(g, {pr, tg}, [](const auto& r) {
      const std::string d = r[0] + "-" + r[1];
      return "log((exp(" + d + ")+exp(-(" + d + ")))/2)";
    });
    g.mark_output(mean(g, l, {0, 1}, false));
  }));
  v.push_back(make("KLDiv_categorical", "custom", "loss", bd(128, 1024), dt_float(), [](Graph& g, const Params& p) {
    // torch.distributions.kl_divergence(Categorical(p), Categorical(q)).mean(): sum(p*(log(p)-log(q)), -1);
    // p and q are probability vectors (positive), as KernelBench's KLDivLoss draws them with .softmax(-1).
    T pp = g.input({P(p, "batch"), P(p, "dim")}, ir::ValueRange::Positive);
    T qq = g.input({P(p, "batch"), P(p, "dim")}, ir::ValueRange::Positive);
    T t = map(g, {pp, qq}, [](const auto& r) { return r[0] + "*(log(" + r[0] + ")-log(" + r[1] + "))"; });
    g.mark_output(batch_mean_of_row_sums(g, t));
  }));
  v.push_back(make("KLDiv_normal_normal", "custom", "loss", bd(128, 256), dt_float(), [](Graph& g, const Params& p) {
    // torch.distributions.kl._kl_normal_normal, summed over the latent dim and averaged over the batch (VAE):
    // var_ratio = (s1/s2)**2, t1 = ((m1-m2)/s2)**2, 0.5*(var_ratio + t1 - 1 - log(var_ratio)); scales positive.
    Shape s{P(p, "batch"), P(p, "dim")};
    T m1 = g.input(s), s1 = g.input(s, ir::ValueRange::Positive);
    T m2 = g.input(s), s2 = g.input(s, ir::ValueRange::Positive);
    T t = map(g, {m1, s1, m2, s2}, [](const auto& r) {
      const std::string vr = "(" + r[1] + "/" + r[3] + ")**2";
      return "0.5*(" + vr + "+((" + r[0] + "-" + r[2] + ")/" + r[3] + ")**2-1-log(" + vr + "))";
    });
    g.mark_output(batch_mean_of_row_sums(g, t));
  }));
  v.push_back(make("Beta_variance_mean_precision", "custom", "elementwise", bd(128, 1024), dt_float(),
                   [](Graph& g, const Params& p) {
                     // torch.distributions.Beta(mu*phi, (1-mu)*phi).variance, the mean-precision parameterisation
                     // of beta regression (Ferrari & Cribari-Neto 2004): c1*c0/(total**2*(total+1)), total = c1+c0;
                     // the precision phi is positive.
                     T mu = g.input({P(p, "batch"), P(p, "dim")});
                     T phi = g.input({P(p, "batch"), P(p, "dim")}, ir::ValueRange::Positive);
                     g.mark_output(map(g, {mu, phi}, [](const auto& r) {
                       const std::string c1 = "(" + r[0] + "*" + r[1] + ")", c0 = "((1-" + r[0] + ")*" + r[1] + ")";
                       const std::string total = "(" + c1 + "+" + c0 + ")";
                       return c1 + "*" + c0 + "/(" + total + "**2*(" + total + "+1))";
                     }));
                   }));
  v.push_back(make("CRF_forward_step", "custom", "reduction", {{"batch", 64, 1, 1024, 4}, {"tags", 32, 2, 256, 8}},
                   dt_float(), crf_forward_step));
  v.push_back(make("Lerp", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    // torch.lerp(start, end, weight) with a tensor weight: start + weight*(end - start)
    T a = g.input({P(p, "batch"), P(p, "dim")}), e = g.input({P(p, "batch"), P(p, "dim")});
    T w = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(map(g, {a, e, w}, [](const auto& r) { return r[0] + "+" + r[2] + "*(" + r[1] + "-" + r[0] + ")"; }));
  }));
  v.push_back(make("GRUCell", "custom", "fused", {{"batch", 64, 1, 1024, 4}, {"input", 128, 1, 1024, 8},
                                                  {"hidden", 128, 1, 1024, 8}},
                   dt_float(), gru_cell));
  v.push_back(make("RationalActivation", "custom", "elementwise", batch_dim_params(), dt_float(),
                   [](Graph& g, const Params& p) {
                     // Rational (Boullé, Nakatsukasa, Townsend 2020) at its initialisation, the type (3,2) best
                     // approximation to ReLU: P(x)/Q(x), P = 1.1915x^3+1.5957x^2+0.5x+0.0218, Q = 2.383x^2+1.
                     T x = g.input({P(p, "batch"), P(p, "dim")});
                     g.mark_output(unary(g, x, [](const std::string& a) {
                       return "(1.1915*" + a + "**3+1.5957*" + a + "**2+0.5*" + a + "+0.0218)/(2.383*" + a + "**2+1.0)";
                     }));
                   }));
}

}  // namespace steptp::frontend::wl
