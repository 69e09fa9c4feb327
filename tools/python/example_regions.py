"""Example: apply fxscope region plans to a small GPT and compare with eager.

The model is the 2-layer GPT of the fxscope fixtures (tests/data/fixtures/graphs/
gpt2_annotated_*.txt) without any annotate() in its source, so every region comes from the
plans. Make the plans with fxscope first, e.g.

    fxscope-cli partition tests/data/fixtures/graphs/gpt2_annotated_fw.txt --plan fw.plan.json
    fxscope-cli partition tests/data/fixtures/graphs/gpt2_annotated_bw.txt --plan bw.plan.json

then, on a machine with a CUDA GPU and PyTorch >= 2.9:

    python3 example_regions.py fw.plan.json bw.plan.json [--record DIR]

It prints the FX graphs' node names it received, what each plan marked, and the largest
difference between compiled and eager outputs and gradients, then "RESULT {json}".
"""

import argparse
import copy
import json
import os
import sys
import time

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fxscope_regions import fxscope_backend  # noqa: E402


class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__()
        s.ln1 = nn.LayerNorm(d); s.attn = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d); s.fc1 = nn.Linear(d, 4 * d); s.fc2 = nn.Linear(4 * d, d)

    def mlp(s, x):
        return s.fc2(torch.nn.functional.gelu(s.fc1(s.ln2(x))))

    def forward(s, x):
        h = s.ln1(x); x = x + s.attn(h, h, h, need_weights=False)[0]
        return x + s.mlp(x)


class GPT(nn.Module):
    def __init__(s, L=2, d=256, h=4, V=1000):
        super().__init__()
        s.emb = nn.Embedding(V, d); s.blocks = nn.ModuleList([Block(d, h) for _ in range(L)])
        s.ln = nn.LayerNorm(d); s.head = nn.Linear(d, V)

    def forward(s, idx):
        x = s.emb(idx)
        for b in s.blocks:
            x = b(x)
        return s.head(s.ln(x))


def max_diff(a, b):
    return (a.float() - b.float()).abs().max().item()


def run(plans, record=None):
    torch.manual_seed(0)
    dev = "cuda"
    model = GPT().to(dev)
    reference = copy.deepcopy(model)
    idx = torch.randint(0, 1000, (4, 64), device=dev)

    ref_out = reference(idx)
    ref_out.sum().backward()

    backend = fxscope_backend(plans, verbose=True)
    t0 = time.perf_counter()
    out = torch.compile(model, backend=backend)(idx)
    out.sum().backward()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - t0

    grads = {n: max_diff(p.grad, q.grad) for (n, p), (_, q) in
             zip(model.named_parameters(), reference.named_parameters())}
    result = {
        "plans": [os.path.basename(p) for p in plans],
        "graphs": [{"nodes": g.nodes, "plan": g.plan and os.path.basename(g.plan),
                    "match": round(g.score, 3), "marked": g.marked, "by_line": g.by_line,
                    "unmatched": g.unmatched, "cleared": g.cleared}
                   for g in backend.report.graphs],
        "first_call_s": round(seconds, 2),
        "out_max_diff": max_diff(out, ref_out),
        "grad_max_diff": max(grads.values()),
        "allclose": bool(torch.allclose(out, ref_out, rtol=1e-3, atol=1e-3) and
                         all(torch.allclose(p.grad, q.grad, rtol=1e-3, atol=1e-3) for p, q in
                             zip(model.parameters(), reference.parameters()))),
    }
    for g in backend.report.graphs:
        names = [line.split(":")[0].split("=")[0].strip()
                 for line in g.graph_code.splitlines() if " = torch.ops." in line]
        print(f"graph {g.index}: {len(names)} ops, first {names[:6]}, last {names[-3:]}")
        if record:
            os.makedirs(record, exist_ok=True)
            with open(os.path.join(record, f"graph{g.index}.txt"), "w") as f:
                f.write(g.graph_code)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("plans", nargs="+", help="region plans from fxscope-cli partition --plan")
    ap.add_argument("--record", help="write the FX graphs received here (graph code)")
    args = ap.parse_args()
    print("torch", torch.__version__, torch.cuda.get_device_name(0), flush=True)
    result = run(args.plans, args.record)
    print("RESULT " + json.dumps(result), flush=True)
    return 0 if result["allclose"] else 1


if __name__ == "__main__":
    sys.exit(main())
