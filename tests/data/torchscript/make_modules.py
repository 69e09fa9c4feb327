# Generates the TorchScript fixtures of tst_torchscript with Debian's torch 1.13
# (/usr/bin/python3 make_modules.py): tiny traced modules, each with its example input and the
# module's own output saved next to it (torch.save dicts, the format `fxscope-cli run --inputs`
# reads).
import torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.nn.functional.gelu(self.fc1(x))), dim=-1)


class ConvBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.pool(y).flatten(1), y.max(dim=1)[0]


def save(name, module, x):
    torch.manual_seed(0)
    module.eval()
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.5)
        if hasattr(module, "bn"):
            module.bn.running_mean.copy_(torch.randn(8) * 0.1)
            module.bn.running_var.copy_(torch.rand(8) + 0.5)
        traced = torch.jit.trace(module, (x,))
        out = module(x)
    traced.save(name + ".pt")
    outs = out if isinstance(out, tuple) else (out,)
    torch.save({"x": x}, name + "_inputs.pt")
    torch.save(tuple(outs), name + "_expected.pt")  # a tuple: LibTorch 1.13 reads any length


torch.manual_seed(1)
save("mlp", Mlp(), torch.randn(5, 8))
save("conv_block", ConvBlock(), torch.randn(2, 3, 6, 6))
