# fxscope's CUDA region compiler next to Inductor, interleaved in one process: for each round and
# each configuration, Inductor (torch.compile, default mode) and eager are timed here with CUDA
# events, then fxscope-cli compiles the same expression from graph code (tools/bench/*_16m.txt
# rewritten to the size, dtype and cuda:0) and reports its own event-timed medians. Prints one
# JSON line per measurement ("ROW {...}") and a table of medians over the rounds with their spread.
# Usage: python3 gpu_inductor.py FXSCOPE_CLI OUTDIR ROUNDS [REPEAT]
import json, os, statistics, subprocess, sys, time
import torch

cli, out, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 50
here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(0)

def chain(x, y):
    a = torch.sin(x) * y + 1.0
    b = torch.relu(a) * 0.5
    c = torch.exp(-b) + torch.tanh(y)
    return torch.sigmoid(c) * x

def softmax_ln(x, w, b):
    s = torch.softmax(x, dim=-1)
    return torch.nn.functional.layer_norm(s + x, x.shape[-1:], w, b)

def per_call_ms(f, args, n):
    for _ in range(3):
        f(*args)
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); f(*args); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)

def back_to_back_ms(f, args, n):
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(n):
        f(*args)
    e.record(); e.synchronize()
    return s.elapsed_time(e) / n

def copy_gbps():
    src = torch.empty(1 << 28, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    ms = per_call_ms(lambda a, b: b.copy_(a), (src, dst), 20)
    return 2 * src.numel() / (ms * 1e6)

TYPES = {"f32": (torch.float32, "f32", 4), "bf16": (torch.bfloat16, "bf16", 2)}

def graph_file(name, n, dt):
    tag, size = TYPES[dt][1], TYPES[dt][2]
    text = open(os.path.join(here, name + "_16m.txt")).read()
    if name == "chain8":
        text = text.replace("f32[16777216][1]cpu", "%s[%d][1]cuda:0" % (tag, n))
    else:
        rows = n // 1024
        text = text.replace("f32[16384, 1024][1024, 1]cpu", "%s[%d, 1024][1024, 1]cuda:0" % (tag, rows))
        text = text.replace("f32[1024][1]cpu", "%s[1024][1]cuda:0" % tag)
    path = os.path.join(out, "graphs", "%s_%dm_%s.txt" % (name, n >> 20, dt))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text)
    return path

def inputs(name, n, dt):
    t = TYPES[dt][0]
    if name == "chain8":
        return (torch.randn(n, device="cuda", dtype=t), torch.randn(n, device="cuda", dtype=t))
    return (torch.randn(n // 1024, 1024, device="cuda", dtype=t),
            torch.randn(1024, device="cuda", dtype=t), torch.randn(1024, device="cuda", dtype=t))

def fxscope(graph, cache):
    cmd = [cli, "compile", graph, "--auto", "--device", "cuda", "--cache", cache, "--json",
           "--repeat", str(repeat)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"error": p.stderr[-2000:]}
    r = json.loads(p.stdout)["regions"][0]
    r["process_s"] = wall
    r.pop("source", None)
    return r

configs = [(g, n, dt) for dt in ("f32", "bf16") for g in ("chain8", "softmax_ln")
           for n in (1 << 24, 1 << 26)]
bytes_per = {"chain8": 3, "softmax_ln": 2}  # elements moved per element of x (reads + writes)
device = torch.cuda.get_device_name(0)
copy = copy_gbps()
print("DEVICE %s, torch %s, copy %.0f GB/s (read+write, 256 MiB, median of 20)" %
      (device, torch.__version__, copy), flush=True)
cache = os.path.join(out, "cache", "cache.db")
compiled, rows = {}, []
for r in range(rounds):
    for (g, n, dt) in configs:
        key = (g, n, dt)
        args = inputs(g, n, dt)
        f = chain if g == "chain8" else softmax_ln
        if key not in compiled:
            torch._dynamo.reset()
            t0 = time.perf_counter()
            compiled[key] = torch.compile(f)
            compiled[key](*args); torch.cuda.synchronize()
            cold = time.perf_counter() - t0
        else:
            cold = None
        row = {"round": r, "graph": g, "n": n, "dtype": dt,
               "inductor_ms": per_call_ms(compiled[key], args, repeat),
               "inductor_b2b_ms": back_to_back_ms(compiled[key], args, repeat),
               "eager_ms": per_call_ms(f, args, 10), "inductor_first_call_s": cold,
               "bytes": bytes_per[g] * n * TYPES[dt][2]}
        del args
        row["fx"] = fxscope(graph_file(g, n, dt), cache)
        print("ROW " + json.dumps(row), flush=True)
        rows.append(row)

json.dump({"device": device, "copy_GBps": copy, "rows": rows}, open(os.path.join(out, "gpu_bench.json"), "w"))
print("\n%s; copy %.0f GB/s; medians over %d rounds (spread = max - min of the round medians)" % (device, copy, rounds))
print("%-10s %4s %4s | %9s %7s %6s | %9s %7s %6s | %5s | %9s %8s | %s" % (
    "graph", "n", "type", "fx ms", "spread", "GB/s", "ind ms", "spread", "GB/s", "ratio",
    "fx eager", "%copy", "fx states / cold compile ms / hit ms"))
for (g, n, dt) in configs:
    rs = [x for x in rows if (x["graph"], x["n"], x["dtype"]) == (g, n, dt)]
    fx = [x["fx"].get("compiled_ms") for x in rs if "compiled_ms" in x["fx"]]
    ind = [x["inductor_ms"] for x in rs]
    b = rs[0]["bytes"]
    if not fx:
        print("%-10s %3dM %4s | fxscope failed: %s" % (g, n >> 20, dt, rs[0]["fx"].get("error", "")[:300]))
        continue
    fm, im = statistics.median(fx), statistics.median(ind)
    states = ",".join(x["fx"].get("state", "?") for x in rs)
    cold = [x["fx"]["compile_ms"] for x in rs if x["fx"].get("state") == "miss"]
    hit = [x["fx"]["compile_ms"] for x in rs if x["fx"].get("state") == "hit"]
    print("%-10s %3dM %4s | %9.4f %7.4f %6.0f | %9.4f %7.4f %6.0f | %5.2f | %9.4f %7.1f%% | %s / %s / %s" % (
        g, n >> 20, dt, fm, max(fx) - min(fx), b / fm / 1e6, im, max(ind) - min(ind), b / im / 1e6,
        im / fm, statistics.median(x["fx"]["eager_ms"] for x in rs), 100 * b / fm / 1e6 / copy,
        states, ",".join("%.0f" % c for c in cold) or "-", ",".join("%.2f" % h for h in hit) or "-"))
