"""fxscope's nested-region plan on the GPU machine (PyTorch >= 2.8, CUDA): one process per mode.

  python3 nested_regions.py run --mode none|plan --plan PLAN --out DIR [--layers N]
      Builds the 24-layer LLaMA-style model of the recorded llama24 fixture (same config as
      tools/fixtures/record.py), runs one eager training step (loss + gradients) as reference,
      then the same step through torch.compile (Inductor) on a fresh copy -- with the plan
      applied by tools/python/fxscope_nested.py (mode plan) or without (mode none) -- and writes
      DIR/result.json: cold compile seconds (first compiled step, forward + backward), the
      largest differences of loss, logits and every gradient from eager, and the plan report.
  python3 nested_regions.py summarize --out DIR
      Reads DIR/{none,plan}/result.json and the TORCH_TRACE each run wrote (DIR/{none,plan}/
      trace) and writes DIR/summary.json and DIR/summary.txt: per mode the compile seconds,
      the accuracy, and how often the decoder block was traced (scaled_dot_product_attention
      calls in the Dynamo graph, a nested body counted once) with the invoke_subgraph bodies
      and calls.

Run through nested_regions.sh, which gives each mode a fresh Inductor cache and trace directory.
"""

import argparse
import copy
import glob
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def build_model(layers, dev):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=128, intermediate_size=256, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=512,
                      max_position_embeddings=128, use_cache=False)
    return LlamaForCausalLM(cfg).to(dev).train()


def step(model, idx):
    out = model(input_ids=idx, labels=idx)
    out.loss.backward()
    return out


def max_diff(a, b):
    return float((a.detach().float() - b.detach().float()).abs().max().item())


def run(args):
    import torch
    import fxscope_nested

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"
    eager = build_model(args.layers, dev)
    compiled_model = copy.deepcopy(eager)
    idx = torch.randint(0, 512, (2, 32), device=dev, generator=torch.Generator(dev).manual_seed(1))
    ref = step(eager, idx)
    result = {"mode": args.mode, "layers": args.layers, "torch": torch.__version__,
              "device": torch.cuda.get_device_name(0)}
    if args.mode == "plan":
        report = fxscope_nested.apply_nested_plan(compiled_model, args.plan)
        result["plan_report"] = str(report)
        result["wrapped"] = sum(len(r.wrapped) for r in report.regions)
    compiled = torch.compile(compiled_model)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = step(compiled, idx)
    torch.cuda.synchronize()
    result["cold_compile_s"] = time.perf_counter() - t0
    for p in compiled_model.parameters():
        p.grad = None
    t0 = time.perf_counter()
    out = step(compiled, idx)  # warm: the same step again, no compile
    torch.cuda.synchronize()
    result["warm_step_s"] = time.perf_counter() - t0
    grads = {n: p.grad for n, p in compiled_model.named_parameters()}
    diffs = {n: max_diff(p.grad, grads[n]) for n, p in eager.named_parameters()
             if p.grad is not None and grads.get(n) is not None}
    missing = [n for n, p in eager.named_parameters() if p.grad is not None and grads.get(n) is None]
    result.update({
        "loss_eager": float(ref.loss.item()), "loss_compiled": float(out.loss.item()),
        "loss_diff": abs(float(ref.loss.item()) - float(out.loss.item())),
        "logits_max_diff": max_diff(ref.logits, out.logits),
        "grad_max_diff": max(diffs.values()) if diffs else None,
        "grad_worst": max(diffs, key=diffs.get) if diffs else None,
        "grads_compared": len(diffs), "grads_missing": missing,
    })
    result["ok"] = (result["loss_diff"] < 1e-3 and result["logits_max_diff"] < 1e-2
                    and result["grad_max_diff"] is not None and result["grad_max_diff"] < 1e-2
                    and not missing)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps({k: v for k, v in result.items() if k != "plan_report"}))


def dynamo_graphs(trace_dir):
    """The payloads of every dynamo_output_graph envelope in the TORCH_TRACE files."""
    graphs = []
    for path in sorted(glob.glob(os.path.join(trace_dir, "*.log"))):
        lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if '"dynamo_output_graph"' not in line:
                continue
            payload = []
            while i < len(lines) and lines[i].startswith("\t"):
                payload.append(lines[i][1:])
                i += 1
            graphs.append("\n".join(payload))
    return graphs


def trace_counts(trace_dir):
    graphs = dynamo_graphs(trace_dir)
    # Statements only: `# File: ... code: ...` comments repeat the source line.
    text = "\n".join(line for g in graphs for line in g.split("\n")
                     if not line.lstrip().startswith("#"))
    return {
        "dynamo_graphs": len(graphs),
        # One attention per decoder block: how often the block was traced and compiled.
        "block_traces": len(re.findall(r"scaled_dot_product_attention\(", text)),
        "subgraph_bodies": len(re.findall(r"^\s*class (\w+)\(torch\.nn\.Module\)", text, re.M))
                           - len(graphs),
        "invoke_subgraph_calls": len(re.findall(r"invoke_subgraph\(", text)),
        "inductor_output_code": sum(open(p, errors="replace").read().count('"inductor_output_code"')
                                    for p in glob.glob(os.path.join(trace_dir, "*.log"))),
    }


def summarize(args):
    rows = {}
    for mode in ("none", "plan"):
        path = os.path.join(args.out, mode, "result.json")
        row = json.load(open(path)) if os.path.exists(path) else {"mode": mode, "error":
                                                                   "no result (see its log)"}
        row.update(trace_counts(os.path.join(args.out, mode, "trace")))
        rows[mode] = row
    none, plan = rows["none"], rows["plan"]
    speedup = (none["cold_compile_s"] / plan["cold_compile_s"]
               if "cold_compile_s" in none and "cold_compile_s" in plan else None)
    summary = {"modes": rows, "cold_compile_speedup": speedup}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    lines = []
    for mode, r in rows.items():
        if "error" in r:
            lines.append(f"{mode:5s}: {r['error']}")
            continue
        lines.append(
            f"{mode:5s}: cold compile {r['cold_compile_s']:.1f} s, warm step "
            f"{r['warm_step_s'] * 1e3:.1f} ms; block traced {r['block_traces']}x "
            f"({r['subgraph_bodies']} nested bodies, {r['invoke_subgraph_calls']} invoke_subgraph "
            f"calls, {r['inductor_output_code']} inductor outputs); loss diff {r['loss_diff']:.2e}, "
            f"logits {r['logits_max_diff']:.2e}, grads {r['grad_max_diff']:.2e} "
            f"({r['grads_compared']} compared); {'OK' if r['ok'] else 'MISMATCH'}")
    if speedup:
        lines.append(f"cold compile: {speedup:.1f}x faster with the plan")
    if "plan_report" in plan:
        lines.append("plan applied:\n" + plan["plan_report"])
    text = "\n".join(lines)
    open(os.path.join(args.out, "summary.txt"), "w").write(text + "\n")
    print(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["run", "summarize"])
    ap.add_argument("--mode", choices=["none", "plan"], default="none")
    ap.add_argument("--plan", default=os.path.join(HERE, "nested_regions_llama24.plan.json"))
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    run(args) if args.what == "run" else summarize(args)


if __name__ == "__main__":
    main()
