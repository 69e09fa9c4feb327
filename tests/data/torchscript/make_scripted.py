# Generates scripted_branch.pt with Debian's torch 1.13 (/usr/bin/python3 make_scripted.py, run
# in this folder): a *scripted* module whose forward keeps a Python `if` as prim::If, which the
# TorchScript importer must report (file name, clear message) instead of converting or crashing.
import torch


class Branchy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if bool(y.sum() > 0):
            y = torch.relu(y)
        else:
            y = -y
        return y


torch.manual_seed(0)
torch.jit.script(Branchy()).save("scripted_branch.pt")
