#!/usr/bin/python3
"""Exports small real PyTorch models to ONNX with PyTorch's own inputs and outputs, in the ONNX backend-test layout
that `steptp import-onnx DIR --check` reads: OUT/<name>/model.onnx and OUT/<name>/test_data_set_0/{input,output}_K.pb.

Random weights (torch.manual_seed(0)), eval mode, small inputs (32x32 images, short sequences), opset 13.
Usage: export_models.py OUT [name ...]   (no names: all). Exit 3 when torch/torchvision/onnx are missing.
"""
import os
import sys

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torchvision
    from onnx import numpy_helper
except ImportError as e:  # the test skips with this message
    print(f"missing Python package: {e.name} (Debian: python3-torch python3-torchvision python3-onnx)", file=sys.stderr)
    sys.exit(3)


class Gpt2Block(nn.Module):
    """A GPT-2 block as written in nanoGPT/HF: fused qkv projection split with tensor.split, causal mask, GELU MLP."""

    def __init__(self, d=32, heads=4, t=8):
        super().__init__()
        self.h = heads
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.register_buffer("mask", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.attn(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.h, d // self.h).transpose(1, 2)
        k = k.view(b, t, self.h, d // self.h).transpose(1, 2)
        v = v.view(b, t, self.h, d // self.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.h) ** 0.5)
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x))))


class UNetUp(nn.Module):
    """A U-Net decoder block: nn.Upsample (bilinear and nearest), skip concatenation, two conv+BN+ReLU."""

    def __init__(self, c=8):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.up_n = nn.Upsample(scale_factor=2, mode="nearest")
        self.conv = nn.Sequential(nn.Conv2d(3 * c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(),
                                  nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())

    def forward(self, x, skip):
        return self.conv(torch.cat([self.up(x), self.up_n(x), skip], dim=1))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=8, hidden_size=16, num_layers=1, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        return y


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(input_size=8, hidden_size=16, num_layers=1, batch_first=True)

    def forward(self, x):
        y, _ = self.gru(x)
        return y


class CrossEntropy(nn.Module):
    def forward(self, logits, target):
        return nn.functional.cross_entropy(logits, target)


def models():
    """name -> (module, example inputs)."""
    img = lambda c=3, s=32: torch.randn(1, c, s, s)
    return {
        "resnet18": lambda: (torchvision.models.resnet18(num_classes=10), (img(),)),
        "mobilenet_v2": lambda: (torchvision.models.mobilenet_v2(num_classes=10), (img(),)),
        "squeezenet": lambda: (torchvision.models.squeezenet1_1(num_classes=10), (img(),)),
        "shufflenet": lambda: (torchvision.models.shufflenet_v2_x0_5(num_classes=10), (img(),)),
        "encoder_layer": lambda: (nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64,
                                                             batch_first=True), (torch.randn(2, 8, 32),)),
        "mha": lambda: (nn.MultiheadAttention(32, 4, batch_first=True),
                        (torch.randn(2, 8, 32), torch.randn(2, 8, 32), torch.randn(2, 8, 32))),
        "gpt2_block": lambda: (Gpt2Block(), (torch.randn(2, 8, 32),)),
        "unet_up": lambda: (UNetUp(), (torch.randn(1, 8, 8, 8), torch.randn(1, 8, 16, 16))),
        "lstm": lambda: (Lstm(), (torch.randn(2, 5, 8),)),
        "gru": lambda: (Gru(), (torch.randn(2, 5, 8),)),
        "cross_entropy": lambda: (CrossEntropy(), (torch.randn(4, 10), torch.tensor([1, 0, 9, 3]))),
    }


def write_pb(path, array):
    with open(path, "wb") as f:
        # ascontiguousarray makes a 0-d array (a scalar loss) 1-d: keep the original shape
        f.write(numpy_helper.from_array(np.ascontiguousarray(array).reshape(np.shape(array))).SerializeToString())


def export(name, make, out):
    torch.manual_seed(0)
    module, inputs = make()
    module.eval()
    # BatchNorm statistics other than 0/1, so that folding or ignoring them would show.
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    d = os.path.join(out, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    with torch.no_grad():
        outputs = module(*inputs)
    if isinstance(outputs, tuple):
        outputs = outputs[0]  # MultiheadAttention: (output, weights); export the output only
        module = _First(module)
    torch.onnx.export(module, inputs, os.path.join(d, "model.onnx"), opset_version=13,
                      input_names=[f"input_{i}" for i in range(len(inputs))], output_names=["output_0"])
    for i, x in enumerate(inputs):
        write_pb(os.path.join(d, "test_data_set_0", f"input_{i}.pb"), x.numpy())
    write_pb(os.path.join(d, "test_data_set_0", "output_0.pb"), outputs.numpy())


class _First(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, *xs):
        return self.m(*xs)[0]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, names = sys.argv[1], sys.argv[2:]
    table = models()
    for n in names or table:
        if n not in table:
            print(f"unknown model {n!r}; known: {', '.join(table)}", file=sys.stderr)
            return 2
        export(n, table[n], out)
        print(f"exported {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
