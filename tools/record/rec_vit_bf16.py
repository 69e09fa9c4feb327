# Records a third architecture for `fxscope-cli attribute`: a small ViT (patch conv, 4 pre-norm
# encoder layers, d=192) trained with bf16 autocast and AdamW, compiled by Inductor with kernel
# provenance, under TORCH_TRACE (set by the caller); 2 warm-up steps, then 3 profiled steps (prof.step()
# without a schedule records no ProfilerStep#N in PyTorch 2.11: checked on this recording). Random
# weights. Usage: rec_vit_bf16.py OUTDIR (run through the device tool, from /home/user/demo).
import os, sys
import torch, torch.nn as nn
import torch._inductor.config as ic
W = sys.argv[1]; os.makedirs(W, exist_ok=True); torch.manual_seed(0); dev = "cuda"
ic.trace.provenance_tracking_level = 1
ic.triton.unique_kernel_names = True

class ViT(nn.Module):
    def __init__(s, d=192, layers=4, classes=100):
        super().__init__()
        s.patch = nn.Conv2d(3, d, 16, 16)
        s.pos = nn.Parameter(torch.zeros(1, 196, d))
        s.blocks = nn.ModuleList(nn.TransformerEncoderLayer(d, 3, 4 * d, batch_first=True,
                                                            norm_first=True) for _ in range(layers))
        s.norm = nn.LayerNorm(d); s.head = nn.Linear(d, classes)
    def forward(s, x):
        x = s.patch(x).flatten(2).transpose(1, 2) + s.pos
        for b in s.blocks: x = b(x)
        return s.head(s.norm(x).mean(1))

m = ViT().to(dev); x = torch.randn(16, 3, 224, 224, device=dev); y = torch.randint(0, 100, (16,), device=dev)
cm = torch.compile(m); opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
def step():
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(cm(x), y)
    loss.backward(); opt.step()
for _ in range(2): step()
torch.cuda.synchronize()
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
    for _ in range(3):
        step(); prof.step()
    torch.cuda.synchronize()
prof.export_chrome_trace(f"{W}/vit_bf16_train_profile.json")
print("ok", torch.__version__, torch.cuda.get_device_name(0), flush=True)
