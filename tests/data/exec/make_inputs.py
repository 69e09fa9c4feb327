# Writes inputs_xy.pt, the inputs file of tst_interpreter (run with Debian's /usr/bin/python3,
# torch 1.13; the format is the one users produce with torch.save({name: tensor}, path)).
import torch

torch.save({"x": torch.arange(6).view(2, 3).float(), "y": torch.full((2, 3), 10.0)},
           "inputs_xy.pt")
# A one-element list (positional input "0"): Python pickles it with APPEND, which LibTorch
# 1.13's unpickler lacks; fxscope reads it anyway.
torch.save([torch.arange(3.0)], "inputs_list1.pt")
