# Whole models on the GPU: fxscope's `run --compiled` next to PyTorch eager and torch.compile
# (Inductor, default and mode="reduce-overhead"), for tools/bench/model_vs_inductor.sh.
#
# Per model (the fixtures' programs, tools of record-fixtures/models.py): a 12-layer GPT and a
# 24-layer LLaMA (transformers) training step, forward + backward of a sum / the LM loss, and
# ResNet-18 inference. The script records the model's graphs as fxscope reads them (an
# aot_autograd backend that prints each graph with strides and devices), then runs ROUNDS
# interleaved rounds: in each, every PyTorch variant times STEPS back-to-back steps (CUDA events
# and wall clock, after warm-up steps), then fxscope runs the recorded forward graph (and the
# backward from it) with its compiled regions, on CUDA graph replays (--cuda-graph) and on runs
# issued without per-node syncs. Medians and spreads (min-max) over the rounds. A separate
# profiled pass per PyTorch variant sums the GPU kernels' durations per step (torch.profiler).
# fxscope's GPU time is the time between CUDA events around its steps (for replays, kernels
# plus the graph's own gaps), an upper bound of its kernel time.
# Usage: python3 model_inductor.py --cli fxscope-cli-torch --out DIR [--models a,b]
#        [--rounds 3] [--steps 20]
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch._inductor.config as inductor_config
import torch.nn as nn

p = argparse.ArgumentParser()
p.add_argument("--cli", required=True)
p.add_argument("--out", required=True)
p.add_argument("--models", default="gpt12_train,llama24_train,resnet18_infer")
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--steps", type=int, default=20)
p.add_argument("--repeat", type=int, default=20)
# Only record each model's graphs into --out (for cold_compile.sh), then stop.
p.add_argument("--record-only", action="store_true")
# Only list Inductor's (default mode) kernels per model: the N longest by name with their counts
# per step, as fxscope's --kernel-time lists its own (kernel_table.sh), then stop.
p.add_argument("--inductor-kernels", type=int, default=0)
# Inductor settings for every torch.compile here, e.g. "allow_buffer_reuse=False,inplace_buffers=
# False" (names of torch._inductor.config; values True, False or integers).
p.add_argument("--inductor-config", default="")
# Weights for --inductor-kernels: "default" (the model's own initialisation), "fanin" (normal
# over the square root of the fan-in, as fxscope synthesises weights) or "constant" (0.01).
p.add_argument("--weights", default="default", choices=["default", "fanin", "constant"])
# Print "phase NAME begin|end UNIX_TIME" around each timed part (for lining up a log of the
# GPU's clocks, such as nvidia-smi --query-gpu=timestamp,clocks.sm -lms 100, with them).
p.add_argument("--phases", action="store_true")
# fxscope refuses a cache under a folder others may write (such as /tmp): its own folder.
p.add_argument("--cache-root", default=os.path.expanduser("~/.cache/fxscope-model-bench"))
args = p.parse_args()
os.makedirs(args.out, exist_ok=True)
os.makedirs(args.cache_root, mode=0o700, exist_ok=True)
dev = "cuda"
for kv in filter(None, args.inductor_config.split(",")):
    key, _, val = (x.strip() for x in kv.partition("="))
    setattr(inductor_config, key, {"True": True, "False": False}[val]
            if val in ("True", "False") else int(val))


class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__()
        s.ln1 = nn.LayerNorm(d)
        s.attn = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d)
        s.fc1 = nn.Linear(d, 4 * d)
        s.fc2 = nn.Linear(4 * d, d)

    def forward(s, x):
        h = s.ln1(x)
        x = x + s.attn(h, h, h, need_weights=False)[0]
        return x + s.fc2(torch.nn.functional.gelu(s.fc1(s.ln2(x))))


class GPT(nn.Module):
    def __init__(s, L, d=256, h=4, V=1000):
        super().__init__()
        s.emb = nn.Embedding(V, d)
        s.blocks = nn.ModuleList([Block(d, h) for _ in range(L)])
        s.ln = nn.LayerNorm(d)
        s.head = nn.Linear(d, V)

    def forward(s, idx):
        x = s.emb(idx)
        for b in s.blocks:
            x = b(x)
        return s.head(s.ln(x))


def make(name):
    """(module, step(fn) -> callable running one step, training?)"""
    torch.manual_seed(0)
    if name == "gpt12_train":
        m = GPT(12).to(dev)
        idx = torch.randint(0, 1000, (4, 64), device=dev)
        return m, (lambda f: f(idx).sum().backward()), True
    if name == "llama24_train":
        from transformers import LlamaConfig, LlamaForCausalLM
        cfg = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=24,
                          num_attention_heads=4, num_key_value_heads=2, vocab_size=1000,
                          max_position_embeddings=256)
        m = LlamaForCausalLM(cfg).to(dev)
        idx = torch.randint(0, 1000, (2, 64), device=dev)
        return m, (lambda f: f(input_ids=idx, labels=idx).loss.backward()), True
    if name == "resnet18_infer":
        import torchvision
        m = torchvision.models.resnet18(weights=None).to(dev).eval()
        x = torch.randn(16, 3, 224, 224, device=dev)

        def step(f):
            with torch.no_grad():
                f(x)
        return m, step, False
    raise SystemExit("unknown model " + name)


def record(name, m, step):
    from torch._dynamo.backends.common import aot_autograd
    dumps = []

    def dumper(gm, example_inputs):
        dumps.append(gm.print_readable(print_output=False, include_stride=True,
                                       include_device=True))
        return gm.forward
    torch._dynamo.reset()
    step(torch.compile(m, backend=aot_autograd(fw_compiler=dumper, bw_compiler=dumper)))
    torch.cuda.synchronize()
    torch._dynamo.reset()
    paths = []
    for i, txt in enumerate(dumps):
        path = os.path.join(args.out, "%s_graph%d.txt" % (name, i))
        open(path, "w").write(txt)
        paths.append(path)
    print(name, "recorded graphs (call_function ops):", [t.count("torch.ops.") for t in dumps],
          flush=True)
    return paths


def phase(name, edge):
    if args.phases:
        print("phase %s %s %.3f" % (name.replace(" ", "_"), edge, time.time()), flush=True)


def zero(m):
    for q in m.parameters():
        q.grad = None


def time_steps(m, f, step, n, mark):
    for _ in range(3):
        zero(m)
        mark()
        step(f)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    for _ in range(n):
        zero(m)
        mark()
        step(f)
    end.record()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1000 / n, start.elapsed_time(end) / n


def kernel_ms(m, f, step, mark, n=5, top=None, count=15):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            zero(m)
            mark()
            step(f)
        torch.cuda.synchronize()
    total = 0.0
    kernels = 0
    names = {}
    calls = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            us = e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
            total += us
            kernels += 1
            names[e.name] = names.get(e.name, 0.0) + us
            calls[e.name] = calls.get(e.name, 0) + 1
    if top:  # the longest kernels by name, as fxscope's top_kernels lists its own
        for name, us in sorted(names.items(), key=lambda kv: -kv[1])[:count]:
            print("%s top kernel: %.4f ms x%.0f  %s" % (top, us / 1000 / n, calls[name] / n,
                                                       name[:110]))
    return total / 1000 / n, kernels / n


FLOATING = ("float32", "float16", "bfloat16", "float64")


def fxscope(graphs, training, cuda_graph, cache, tag):
    """fxscope's step: the forward graph (and the backward from it). Returns a dict or None."""
    # The kernels are also summed by LibTorch's profiler (--kernel-time), as torch.profiler sums
    # PyTorch's below: replays to compare with reduce-overhead's replays, runs without graphs
    # with torch.compile's default mode (each side timed the same way).
    common = ["--compiled", "--auto", "--device", "cuda", "--json", "--cache", cache,
              "--repeat", str(args.repeat), "--kernel-time"] + (["--cuda-graph"]
                                                               if cuda_graph else [])
    runs = [[graphs[0]]]
    if training and len(graphs) > 1:
        runs.append([graphs[1], "--from-forward", graphs[0]])
    out = {"device_ms": 0.0, "wall_ms": 0.0, "host_ms": 0.0, "eager_device_ms": 0.0,
           "eager_wall_ms": 0.0, "process_s": 0.0, "nodes": 0, "regions": 0, "used": 0,
           "kernels": 0, "slower_than_eager": 0, "max_abs_err": 0.0, "unmatched": 0,
           "other_outputs_differing": 0, "not_compared": 0, "kernel_ms": None,
           "kernel_events": 0.0, "eager_kernel_ms": None}
    for r in runs:
        t0 = time.perf_counter()
        proc = subprocess.run([args.cli, "run"] + r + common, capture_output=True, text=True)
        out["process_s"] += time.perf_counter() - t0
        try:
            j = json.loads(proc.stdout)
        except ValueError:
            print(tag, "fxscope output unreadable:", proc.stderr[-2000:], flush=True)
            return None
        if not j.get("ok") or j.get("device_ms") is None:
            print(tag, "fxscope failed:", json.dumps(j.get("error", j.get("unsupported")))[:2000],
                  flush=True)
            return None
        out["device_ms"] += j["device_ms"]
        out["eager_device_ms"] += j["eager_device_ms"]
        if j.get("kernel_ms") is not None:
            out["kernel_ms"] = (out["kernel_ms"] or 0.0) + j["kernel_ms"]
            out["eager_kernel_ms"] = (out["eager_kernel_ms"] or 0.0) + j["eager_kernel_ms"]
            out["kernel_events"] += j["kernel_events"]
            for k in j.get("top_kernels") or []:
                print("%s top kernel %s: %.4f ms x%.0f  %s" % (tag, r[0].split("/")[-1], k["ms"],
                                                             k["count"], k["name"][:110]))
        out["wall_ms"] += j["total_ms"]
        out["eager_wall_ms"] += j["eager_total_ms"]
        out["host_ms"] += j["host_ms"]
        out["nodes"] += j["nodes_run"]
        out["regions"] += len(j["regions"])
        out["used"] += j["regions_used"]
        # The compiled graph's launches (regions' kernels and the eager steps that launch work)
        # where the CLI reports them; else the regions' kernels alone.
        out["kernels"] += j.get("kernels", sum(x["kernels"] for x in j["regions"]
                                              if x["state"] in ("hit", "miss")))
        out["slower_than_eager"] += sum(1 for x in j["regions"]
                                        if x["reason"] == "slower_than_eager")
        for x in j["regions"]:
            if x["state"] not in ("hit", "miss"):
                print("%s region not used %s %s: %s (%s) %s" % (
                    tag, r[0].split("/")[-1], x["id"], x["state"], x["reason"],
                    x.get("module", "")), flush=True)
        # Floating outputs only: attention's int64 philox seed and offset outputs are left
        # uninitialised by PyTorch when dropout is 0, so they differ from run to run.
        floating = [o for o in j["outputs"] if o.get("dtype", "") in FLOATING]
        errs = [o["max_abs_err"] for o in floating if o.get("max_abs_err") is not None]
        out["max_abs_err"] = max([out["max_abs_err"]] + errs)
        out["unmatched"] += sum(1 for o in floating if o.get("max_abs_err") is None)
        out["other_outputs_differing"] += sum(
            1 for o in j["outputs"] if o.get("dtype", "") not in FLOATING and o.get("max_abs_err"))
        out["not_compared"] += sum(1 for o in j["outputs"] if o.get("not_compared"))
    return out


def med(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    return "%.3f (%.3f-%.3f)" % (statistics.median(xs), min(xs), max(xs))


def per_node(xs):
    """Host time a node: the median of the rounds with their range (each round's figure is
    itself the median of its timed runs)."""
    return med([x["host_ms"] * 1000 / max(1, x["nodes"]) for x in xs])


print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
results = {}
for name in args.models.split(","):
    m, step, training = make(name)
    graphs = record(name, m, step)
    if args.record_only:
        continue
    if args.inductor_kernels:
        with torch.no_grad():
            for q in m.parameters():
                if args.weights == "fanin" and q.dim() >= 2:
                    q.copy_(torch.randn_like(q) / (q[0].numel() ** 0.5))
                elif args.weights == "constant" and q.dim() >= 2:
                    q.fill_(0.01)
        cm = torch.compile(m)
        step(cm)
        ms, launches = kernel_ms(m, cm, step, lambda: None, top=name + " inductor",
                                 count=args.inductor_kernels)
        print("%s inductor kernel ms/step %.4f, kernels/step %.0f" % (name, ms, launches),
              flush=True)
        del cm
        torch._dynamo.reset()
        continue
    variants = {"eager": (m, lambda: None)}
    t0 = time.perf_counter()
    cm = torch.compile(m)
    step(cm)
    torch.cuda.synchronize()
    cold_inductor = time.perf_counter() - t0
    variants["inductor"] = (cm, lambda: None)
    t0 = time.perf_counter()
    ro = torch.compile(m, mode="reduce-overhead")
    for _ in range(3):
        torch.compiler.cudagraph_mark_step_begin()
        zero(m)
        step(ro)
    torch.cuda.synchronize()
    cold_ro = time.perf_counter() - t0
    variants["reduce-overhead"] = (ro, torch.compiler.cudagraph_mark_step_begin)
    print(name, "first call: inductor %.1f s, reduce-overhead %.1f s" % (cold_inductor, cold_ro),
          flush=True)
    cache = os.path.join(args.cache_root, name, "cache.db")
    rows = {k: {"wall": [], "gpu": []} for k in variants}
    fx = {"graphs": [], "sync-free": []}
    cold = None
    for r in range(args.rounds):
        for k, (f, mark) in variants.items():
            phase("%s %s steps" % (name, k), "begin")
            wall, gpu = time_steps(m, f, step, args.steps, mark)
            phase("%s %s steps" % (name, k), "end")
            rows[k]["wall"].append(wall)
            rows[k]["gpu"].append(gpu)
        for mode, cg in (("graphs", True), ("sync-free", False)):
            phase("%s fxscope %s" % (name, mode), "begin")
            res = fxscope(graphs, training, cg, cache, "%s round %d %s" % (name, r, mode))
            phase("%s fxscope %s" % (name, mode), "end")
            fx[mode].append(res)
            if r == 0 and mode == "graphs" and res:
                cold = res["process_s"]
    kern = {}
    for k, (f, mark) in variants.items():
        phase("%s %s kernels" % (name, k), "begin")
        kern[k] = kernel_ms(m, f, step, mark, top=("%s %s" % (name, k)) if k == "inductor"
                            else None)
        phase("%s %s kernels" % (name, k), "end")
    print("\n## %s (%s)" % (name, torch.cuda.get_device_name(0)))
    print("| variant | GPU ms/step (events) | wall ms/step | kernel ms/step (profiler) "
          "| kernels/step |")
    print("|---|---|---|---|---|")
    for k in variants:
        print("| %s | %s | %s | %.3f | %.0f |" % (k, med(rows[k]["gpu"]), med(rows[k]["wall"]),
                                                 kern[k][0], kern[k][1]))
    for mode in fx:
        ok = [x for x in fx[mode] if x]
        if not ok:
            print("| fxscope %s | failed | | | |" % mode)
            continue
        kms = [x["kernel_ms"] for x in ok if x["kernel_ms"] is not None]
        ekms = [x["eager_kernel_ms"] for x in ok if x["eager_kernel_ms"] is not None]
        print("| fxscope %s | %s | %s | %s | %d (%s profiled) |" % (
            mode, med([x["device_ms"] for x in ok]), med([x["wall_ms"] for x in ok]),
            med(kms) if kms else "", ok[0]["kernels"],
            "%.0f" % ok[0]["kernel_events"] if kms else "none"))
        print("| fxscope eager engine (%s) | %s | %s | %s | |" % (
            mode, med([x["eager_device_ms"] for x in ok]), med([x["eager_wall_ms"] for x in ok]),
            med(ekms) if ekms else ""))
    ok = [x for x in fx["sync-free"] if x]
    if ok:
        x = ok[-1]
        print("fxscope: %d nodes, %d regions (%d used, %d fell back slower than eager), "
              "host %s ms without graphs (%s us a node), floating outputs' max abs err "
              "%.3g vs its eager run (%d with NaN/Inf apart), %d other outputs differing, %d not "
              "compared (undefined by PyTorch)" % (
                  x["nodes"], x["regions"], x["used"], x["slower_than_eager"],
                  med([y["host_ms"] for y in ok]), per_node(ok), x["max_abs_err"],
                  x["unmatched"], x["other_outputs_differing"], x["not_compared"]))
    okg = [x for x in fx["graphs"] if x]
    if okg:
        print("fxscope replay host %s ms (%s us a node)" % (
            med([y["host_ms"] for y in okg]), per_node(okg)))
    if cold is not None:
        print("fxscope first process (empty cache, CUDA_CACHE_DISABLE=1): %.1f s for the "
              "step's graphs; Inductor's first call %.1f s" % (cold, cold_inductor))
    sys.stdout.flush()
    del variants, cm, ro, m
    torch._dynamo.reset()
    torch.cuda.empty_cache()
