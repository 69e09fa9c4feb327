# Records Inductor's CUDA-graph mode for `fxscope-cli attribute`: a small MLP block stack
# compiled with mode="reduce-overhead" (inference, then 3 profiled steps), kernel provenance on,
# under TORCH_TRACE (set by the caller). The profiled kernels are launched by cudaGraphLaunch
# replays, not one launch each. Random weights. Usage: rec_cudagraphs.py OUTDIR (through the
# device tool, from /home/user/demo).
import os
import sys

import torch
import torch._inductor.config as ic
import torch.nn as nn

ic.trace.provenance_tracking_level = 1
ic.triton.unique_kernel_names = True


class Block(nn.Module):
    def __init__(s, d):
        super().__init__()
        s.ln = nn.LayerNorm(d)
        s.fc1 = nn.Linear(d, 4 * d)
        s.fc2 = nn.Linear(4 * d, d)

    def forward(s, x):
        return x + s.fc2(torch.nn.functional.gelu(s.fc1(s.ln(x))))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    m = nn.Sequential(*[Block(256) for _ in range(3)]).cuda().eval()
    x = torch.randn(64, 256, device="cuda")
    cm = torch.compile(m, mode="reduce-overhead")
    with torch.no_grad():
        for _ in range(3):
            cm(x)
        torch.cuda.synchronize()
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                cm(x)
            torch.cuda.synchronize()
    prof.export_chrome_trace(f"{out}/cudagraphs_infer_profile.json")
    print("ok", torch.__version__, torch.cuda.get_device_name(0), flush=True)


if __name__ == "__main__":
    main()
