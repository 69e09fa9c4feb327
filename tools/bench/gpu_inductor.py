# fxscope's CUDA region compiler next to Inductor, interleaved in one process: for each round and
# each configuration, Inductor (torch.compile, default mode) and eager are timed here with CUDA
# events, then fxscope-cli compiles the same expression from graph code (tools/bench/*_16m.txt
# rewritten to the size, dtype and cuda:0) and reports its own event-timed medians. Prints one
# JSON line per measurement ("ROW {...}") and a table of medians over the rounds with their spread.
# TUNINGS="row_elements=8;row_elements=32" (--cuda-tuning values separated by ';') runs fxscope once
# per tuning in every round, each with its own cache (cold in the first round, hits after), and
# prints one table line per tuning ("default": fxscope's own choice, also when TUNINGS is unset).
# Fair to Inductor and honest about cold starts:
# - static shapes: every (expression, size, dtype) gets a fresh function object (its own code
#   object, so Dynamo's cache is its own) compiled with dynamic=False, and Dynamo is never reset:
#   Inductor's kernels are specialised on the size as fxscope's are (no automatic dynamic
#   recompiles after the first size);
# - the headline ratio is from back-to-back event timings on both sides (the GPU's time per call
#   with launch latency hidden); per-call medians compare a C++ launch with torch.compile's
#   Python dispatch and are printed beside it, not as the verdict;
# - cold means cold: CUDA's compute cache is off (CUDA_CACHE_DISABLE=1) for both processes, and
#   Inductor's and Triton's caches start empty under OUTDIR.
# Usage: python3 gpu_inductor.py FXSCOPE_CLI OUTDIR ROUNDS [REPEAT]
import json, os, statistics, subprocess, sys, time, types

_out = sys.argv[2]
os.environ["CUDA_CACHE_DISABLE"] = "1"
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(_out, "inductor_cache")
os.environ["TRITON_CACHE_DIR"] = os.path.join(_out, "triton_cache")
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

def copy_gbps(moved=2 << 28, n=20):
    # A device-to-device copy that reads and writes `moved` bytes in all, back to back.
    src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    back_to_back_ms(lambda a, b: b.copy_(a), (src, dst), 3)
    ms = back_to_back_ms(lambda a, b: b.copy_(a), (src, dst), n)
    return moved / (ms * 1e6)

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

tunings = [("" if t.strip() == "default" else t.strip())
           for t in os.environ.get("TUNINGS", "").split(";") if t.strip()] or [""]

def fxscope(graph, cache, tuning=""):
    # --retime: a hit is timed in every round (else it reports the miss's saved timings).
    cmd = [cli, "compile", graph, "--auto", "--device", "cuda", "--cache", cache, "--json",
           "--repeat", str(repeat), "--retime"] + (["--cuda-tuning", tuning] if tuning else [])
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
print("DEVICE %s, torch %s, copy %.0f GB/s (read+write, 256 MiB, 20 back to back)" %
      (device, torch.__version__, copy), flush=True)
cache = os.path.join(out, "cache", "cache.db")
compiled, rows = {}, []
for r in range(rounds):
    for (g, n, dt) in configs:
        key = (g, n, dt)
        args = inputs(g, n, dt)
        f = chain if g == "chain8" else softmax_ln
        if key not in compiled:
            fresh = types.FunctionType(f.__code__.replace(), f.__globals__, f.__name__)
            t0 = time.perf_counter()
            compiled[key] = torch.compile(fresh, dynamic=False)
            compiled[key](*args); torch.cuda.synchronize()
            cold = time.perf_counter() - t0
        else:
            cold = None
        row = {"round": r, "graph": g, "n": n, "dtype": dt,
               "inductor_ms": per_call_ms(compiled[key], args, repeat),
               "inductor_b2b_ms": back_to_back_ms(compiled[key], args, repeat),
               "eager_ms": per_call_ms(f, args, 10), "inductor_first_call_s": cold,
               "bytes": bytes_per[g] * n * TYPES[dt][2],
               "copy_same_bytes_GBps": copy_gbps(bytes_per[g] * n * TYPES[dt][2], repeat)}
        del args
        for ti, tuning in enumerate(tunings):
            cache_t = cache if not tuning else cache.replace(".db", "_%d.db" % ti)
            row = dict(row, tuning=tuning or "default", fx=fxscope(graph_file(g, n, dt), cache_t, tuning))
            print("ROW " + json.dumps(row), flush=True)
            rows.append(row)

json.dump({"device": device, "copy_GBps": copy, "rows": rows}, open(os.path.join(out, "gpu_bench.json"), "w"))
print("\n%s; copy %.0f GB/s; medians over %d rounds (spread = max - min of the round medians)" % (device, copy, rounds))
print("%-10s %4s %4s %-22s | %8s %7s %8s %6s | %8s %7s %8s %6s | %5s %5s | %8s %6s %6s | %s" % (
    "graph", "n", "type", "tuning", "fx ms", "spread", "fx b2b", "GB/s", "ind ms", "spread",
    "ind b2b", "GB/s", "b2b", "call", "fx eager", "%copy", "%size", "fx states / cold compile ms / hit ms"))
# b2b (the verdict): Inductor's back-to-back mean over fxscope's; call: the same for per-call
# medians (launch overheads differ: C++ vs Python dispatch); (GB/s
# and % of copy from the back-to-back means; %copy against the 256 MiB copy, %size against a copy
# moving the same bytes as the expression, measured in the same round).
for (g, n, dt) in configs:
    for tuning in tunings:
        rs = [x for x in rows if (x["graph"], x["n"], x["dtype"]) == (g, n, dt)
              and x["tuning"] == (tuning or "default")]
        fx = [x["fx"].get("compiled_ms") for x in rs if "compiled_ms" in x["fx"]]
        fxb = [x["fx"].get("compiled_b2b_ms", 0) for x in rs if "compiled_ms" in x["fx"]]
        ind = [x["inductor_ms"] for x in rs]
        b2b = [x["inductor_b2b_ms"] for x in rs]
        b = rs[0]["bytes"]
        name = tuning or "default"
        if not fx:
            print("%-10s %3dM %4s %-22s | fxscope failed: %s" % (g, n >> 20, dt, name, rs[0]["fx"].get("error", "")[:300]))
            continue
        fm, fb, im, bm = (statistics.median(v) for v in (fx, fxb, ind, b2b))
        states = ",".join(x["fx"].get("state", "?") for x in rs)
        cold = [x["fx"]["compile_ms"] for x in rs if x["fx"].get("state") == "miss"]
        hit = [x["fx"]["compile_ms"] for x in rs if x["fx"].get("state") == "hit"]
        same = statistics.median(x["copy_same_bytes_GBps"] for x in rs)
        print("%-10s %3dM %4s %-22s | %8.4f %7.4f %8.4f %6.0f | %8.4f %7.4f %8.4f %6.0f | %5.2f %5.2f | %8.4f %5.1f%% %5.1f%% | %s / %s / %s" % (
            g, n >> 20, dt, name, fm, max(fx) - min(fx), fb, b / fb / 1e6 if fb else 0, im,
            max(ind) - min(ind), bm, b / bm / 1e6, bm / fb if fb else 0, im / fm,
            statistics.median(x["fx"]["eager_ms"] for x in rs), 100 * b / fb / 1e6 / copy if fb else 0,
            100 * b / fb / 1e6 / same if fb else 0,
            states, ",".join("%.0f" % c for c in cold) or "-", ",".join("%.2f" % h for h in hit) or "-"))
