#!/usr/bin/python3
"""Golden outputs of the model-form workloads (src/frontend/workloads/model_forms.cpp) computed with PyTorch.

Each case runs the real PyTorch operator (torch.distributions, nn.GRUCell, torch.lerp, ...) in float64 on small fixed
inputs and records the inputs, in the workload's known order (inputs, then params), with the output. The test
tests/frontend/test_workloads_model_forms.cpp runs each workload in the reference interpreter on the same inputs
and compares. Regenerate with
    /usr/bin/python3 tests/frontend/golden/model_forms_torch.py > tests/frontend/golden/model_forms_torch.json
"""
import json

import torch
import torch.nn.functional as F
from torch.distributions import Beta, Categorical, Normal, kl_divergence

torch.manual_seed(47)
D = torch.float64


def randn(*s):
    return torch.randn(*s, dtype=D)


def probs(*s):
    return torch.softmax(randn(*s), dim=-1)


def scales(*s):
    return torch.rand(*s, dtype=D) * 1.5 + 0.25


def flat(t):
    return [float(v) for v in t.reshape(-1)]


def case(name, params, inputs, out):
    return {"workload": name, "params": params, "inputs": [flat(t) for t in inputs], "output": flat(out)}


def rational(x):
    # NBoulle/RationalNets "PyTorch implementation/rational.py": coeffs at initialisation, powers [3, 2, 1, 0].
    coeffs = torch.tensor([[1.1915, 0.0], [1.5957, 2.383], [0.5, 0.0], [0.0218, 1.0]], dtype=D)
    pq = torch.pow(x.unsqueeze(-1), torch.tensor([3.0, 2.0, 1.0, 0.0], dtype=D)) @ coeffs
    return pq[..., 0] / pq[..., 1]


def main():
    cases = []
    x = randn(2, 3)
    cases.append(case("LogSoftmax_log_of_softmax", {"batch": 2, "dim": 3}, [x], torch.log(torch.softmax(x, dim=1))))
    p, t = randn(2, 3), randn(2, 3)
    cases.append(case("LogCoshLoss", {"batch": 2, "dim": 3}, [p, t], torch.log(torch.cosh(p - t)).mean()))
    pp, qq = probs(2, 3), probs(2, 3)
    kl = kl_divergence(Categorical(probs=pp), Categorical(probs=qq)).mean()
    cases.append(case("KLDiv_categorical", {"batch": 2, "dim": 3}, [pp, qq], kl))
    m1, s1, m2, s2 = randn(2, 3), scales(2, 3), randn(2, 3), scales(2, 3)
    kl = kl_divergence(Normal(m1, s1), Normal(m2, s2)).sum(-1).mean()
    cases.append(case("KLDiv_normal_normal", {"batch": 2, "dim": 3}, [m1, s1, m2, s2], kl))
    mu, phi = torch.rand(2, 3, dtype=D) * 0.8 + 0.1, scales(2, 3) * 4
    var = Beta(mu * phi, (1 - mu) * phi).variance  # beta regression's mean-precision parameterisation
    cases.append(case("Beta_variance_mean_precision", {"batch": 2, "dim": 3}, [mu, phi], var))
    score, trans, emis = randn(2, 3), randn(3, 3), randn(2, 3)
    nxt = torch.logsumexp(score.unsqueeze(2) + trans + emis.unsqueeze(1), dim=1)  # torchcrf _compute_normalizer
    cases.append(case("CRF_forward_step", {"batch": 2, "tags": 3}, [score, trans, emis], nxt))
    a, e, w = randn(2, 3), randn(2, 3), torch.rand(2, 3, dtype=D)
    cases.append(case("Lerp", {"batch": 2, "dim": 3}, [a, e, w], torch.lerp(a, e, w)))
    cell = torch.nn.GRUCell(3, 2).to(D)
    xi, hx = randn(2, 3), randn(2, 2)
    with torch.no_grad():
        h1 = cell(xi, hx)
    cases.append(case("GRUCell", {"batch": 2, "input": 3, "hidden": 2},
                      [xi, hx, cell.weight_ih.detach(), cell.weight_hh.detach(), cell.bias_ih.detach(),
                       cell.bias_hh.detach()], h1))
    x = randn(2, 3) * 2
    cases.append(case("RationalActivation", {"batch": 2, "dim": 3}, [x], rational(x)))
    print(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1))


if __name__ == "__main__":
    main()
