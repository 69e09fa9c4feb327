#!/usr/bin/env python3
"""A mutation campaign over the fixtures and the CLI's commands, as a hostile user would run it.

Makes MUTANTS mutants of the test fixtures (graph code, TORCH_TRACE logs and directories, .pt2
archives, TorchScript .pt files; plain and gzip'd; zips whose entries declare sizes their data
cannot hold), then runs fxscope-cli commands on each (inspect, structure, render, partition,
run, explain, diagnose, compile --no-run; now and then with a FIFO as an input or output file)
and counts:
  crash    the process died from a signal (SIGSEGV, SIGABRT, ...) or an exit code >= 128
  hang     it ran past --timeout seconds (then killed)
  badjson  a --json command exited 0-3 but its stdout was not one JSON document
Every input that crashed, hung or wrote bad JSON is kept under OUT/failures with the command.

Beside those random mutants, the attack classes of issue 31 (--classes; each --attacks cases):
  inject    node names (.pt2) and region ids (.fxscope) holding newlines, */, quotes,
            backslashes, NUL, Unicode separators and C++ that touches a marker file
            (tests/data/injection/names.txt when it exists, else a built-in list); compiled and
            run with --dump: verdict "marker" when the marker file appears, "leak" when a dumped
            source holds a payload verbatim
  nesting   JSON nested 100,000 deep (.pt2 program, .fxscope project, TORCH_TRACE metrics),
            100,000 parentheses and 20,000-long unary chains in size expressions, TorchScript
            operator chains, pickles nested 200,000 deep
  integers  INT64_MIN // -1, % -1, % 0, // 0, literals past int64 in size expressions, --size
  sizes     .pt2 weights declaring huge sizes, gzip bombs: verdict "rss" past --max-rss-mb
  fifo      FIFOs without a writer or reader as inputs and outputs (run --inputs, inspect,
            partition --save-project, profile --save): must end (else "hang") within --timeout
Deterministic for a given --seed. Needs only the Python standard library.

  tools/fuzz/mutation_campaign.py --cli build/app/cli/fxscope-cli --mutants 1500 --out /tmp/mc
  tools/fuzz/mutation_campaign.py --cli build/app/cli/fxscope-cli --mutants 0 \\
      --classes inject,nesting,integers,sizes,fifo --attacks 8 --out /tmp/mc31
"""
import argparse
import concurrent.futures
import gzip
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")


MAX_SEED_BYTES = 4 << 20  # the 64-layer logs and graphs (14 MB) would make each run seconds


def fixtures():
    """(kind, path) of every seed input file up to MAX_SEED_BYTES (inflated)."""
    out = []
    for sub, kind in (("fixtures/graphs", "code"), ("recorded/graphs", "code"),
                      ("fixtures/export", "pt2"), ("recorded/export", "pt2"),
                      ("torchscript", "pt"), ("recorded/traces", "trace")):
        folder = os.path.join(DATA, sub)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if (os.path.isfile(path) and not name.endswith((".py", ".json")) and
                    len(read_plain(path)) <= MAX_SEED_BYTES):
                out.append((kind, path))
    for name in sorted(os.listdir(os.path.join(DATA, "fixtures/traces"))):
        run = os.path.join(DATA, "fixtures/traces", name)
        for log in sorted(os.listdir(run)):
            out.append(("trace", os.path.join(run, log)))
    return out


def read_plain(path):
    data = open(path, "rb").read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


# ---- mutators: bytes -> bytes -------------------------------------------------------------

def flip_bytes(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def truncate(rng, data):
    return data[: rng.randrange(len(data) + 1)] if data else data


def lines_op(rng, data):
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.randrange(4)
    if op == 0:
        lines.insert(i, lines[j])          # duplicate
    elif op == 1:
        del lines[i]                       # delete
    elif op == 2:
        lines[i], lines[j] = lines[j], lines[i]  # swap
    else:
        lines[i] = lines[i][::-1]          # reverse one line
    return b"\n".join(lines)


def bad_utf8(rng, data):
    at = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x00"])
    return data[:at] + junk * rng.randint(1, 4) + data[at:]


NUMBER = re.compile(rb"[0-9]+")
BAD_NUMBERS = [b"0", b"-1", b"99999999999999999999", b"4294967296", b"1e308", b"nan"]


def numbers(rng, data):
    return NUMBER.sub(lambda m: rng.choice(BAD_NUMBERS) if rng.random() < 0.02 else m.group(0),
                      data)


def nesting(rng, data):
    at = rng.randrange(len(data) + 1)
    depth = rng.choice([100, 1000, 10000])
    opener = rng.choice([b"(", b"[", b"{"])
    return data[:at] + opener * depth + data[at:]


def splice(rng, data, other):
    if not data or not other:
        return data
    a, b = rng.randrange(len(data)), rng.randrange(len(other))
    return data[:a] + other[b:]


MUTATORS = [flip_bytes, truncate, lines_op, bad_utf8, numbers, nesting]


def mutate_zip(rng, path, dest):
    """A mutated copy of a zip archive (.pt2, .pt): one entry mutated, or the bytes themselves."""
    if rng.random() < 0.4 or not zipfile.is_zipfile(path):
        open(dest, "wb").write(rng.choice(MUTATORS)(rng, open(path, "rb").read()))
        return
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(dest, "w") as out:
        names = src.namelist()
        victim = rng.choice(names)
        for n in names:
            data = src.read(n)
            if n == victim:
                data = rng.choice(MUTATORS)(rng, data)
            if rng.random() < 0.03 and n != victim:
                continue  # a missing entry
            out.writestr(n, data)


LIES = (1 << 31, (1 << 32) - 1, 3 << 30, 1 << 30)


def lie_about_sizes(rng, path, dest):
    """A copy of a zip whose entries declare sizes their data cannot hold: one entry's (or every
    entry's) uncompressed size rewritten in both its headers, so that readers get as far as
    allocating what it declares (issue 31: a 533-byte file allocated 4.25 GB)."""
    data = bytearray(open(path, "rb").read())
    end = data.rfind(b"PK\x05\x06")
    if end < 0 or end + 22 > len(data):
        open(dest, "wb").write(bytes(data))
        return
    count = int.from_bytes(data[end + 10:end + 12], "little")
    at = int.from_bytes(data[end + 16:end + 20], "little")
    victim = rng.randrange(max(count, 1)) if rng.random() < 0.7 else -1
    for i in range(count):
        if at + 46 > len(data) or data[at:at + 4] != b"PK\x01\x02":
            break
        names = int.from_bytes(data[at + 28:at + 30], "little")
        rest = names + int.from_bytes(data[at + 30:at + 32], "little") + \
            int.from_bytes(data[at + 32:at + 34], "little")
        local = int.from_bytes(data[at + 42:at + 46], "little")
        if victim in (-1, i):
            lie = rng.choice(LIES).to_bytes(4, "little")
            data[at + 24:at + 28] = lie
            if local + 26 <= len(data) and data[local:local + 4] == b"PK\x03\x04":
                data[local + 22:local + 26] = lie
        at += 46 + rest
    open(dest, "wb").write(bytes(data))


def make_mutant(rng, kind, path, seeds, folder, index):
    ext = {"code": ".txt", "trace": ".log", "pt2": ".pt2", "pt": ".pt"}[kind]
    dest = os.path.join(folder, "m%05d%s" % (index, ext))
    if kind in ("pt2", "pt"):
        (lie_about_sizes if rng.random() < 0.1 else mutate_zip)(rng, path, dest)
        return dest
    data = read_plain(path)
    for _ in range(rng.randint(1, 3)):
        m = rng.choice(MUTATORS + [splice])
        data = m(rng, data, read_plain(rng.choice(seeds)[1])) if m is splice else m(rng, data)
    if rng.random() < 0.2:
        dest += ".gz"
        data = gzip.compress(data)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data) + 1)]  # a gzip cut short
    open(dest, "wb").write(data)
    return dest


def commands(rng, kind, mutant, original, scratch):
    """The commands to run on one mutant (each a list of arguments after the CLI)."""
    cmds = [["inspect", mutant, "--json"]]
    if kind in ("code", "pt2", "pt", "trace"):
        cmds.append(["structure", mutant, "--json"])
    extra = []
    if kind == "trace":
        extra += [["explain", original, mutant, "--json"], ["diagnose", mutant, "--json"]]
    if kind in ("code", "pt2", "pt"):
        extra += [["partition", mutant, "--auto", "--json"], ["run", mutant, "--json"]]
    extra.append(["render", mutant, "--out", os.path.join(scratch, "r.svg")])
    if kind == "code" and rng.random() < 0.05:
        extra.append(["compile", mutant, "--auto", "--no-run", "--json", "--cache",
                      os.path.join(scratch, "cache", "c.db")])
    cmds.append(rng.choice(extra))
    if rng.random() < 0.05:
        cmds.append(fifo_command(rng, kind, mutant, scratch))
    return cmds


# ---- attack classes (issue 31): each returns cases {"args", "input", "oracle"} ------------

INJECTION_FILE = os.path.join(DATA, "injection", "names.txt")
MARKER = "FXS_INJECTED"  # payloads touch $SCRATCH/FXS_INJECTED; {marker} is its path


def injection_payloads(marker):
    """Hostile names: one a line of names.txt (a JSON string, or text with Python escapes such
    as \\n \\x00 \\\\; # starts a comment line), or the built-in list."""
    if os.path.isfile(INJECTION_FILE):
        lines = [l for l in open(INJECTION_FILE, encoding="utf-8").read().split("\n")
                 if l and not l.startswith("#")]
        names = [json.loads(l) if l.startswith('"') else
                 l.encode("ascii").decode("unicode_escape") if l.isascii() else l
                 for l in lines]
    else:
        cmd = 'extern "C" int system(const char*); __attribute__((constructor)) static void ' \
              'fxs_pwn() { system("touch {marker}"); }'
        names = ["gelu\n " + cmd + " //",
                 "gelu */ " + cmd + " /*",
                 "gelu\r" + cmd,
                 "gelu\\\n" + cmd,
                 'gelu" ); ' + cmd + ' //',
                 "gelu' " + cmd,
                 "gelu\u2028" + cmd,
                 "gelu\x00" + cmd,
                 "gelu??/\n" + cmd,
                 "../../" + MARKER,
                 "a\u202eb\u0301c\U0001F600",
                 "\t\v\f"]
    return [n.replace("{marker}", marker) for n in names]


def deep_array(depth):
    return b"[" * depth + b"]" * depth


def pt2_with(src, dest, edit):
    """A copy of the .pt2 src with edit(name, bytes) -> bytes applied to every entry; entries
    that changed go last (a TorchScript archive is recognised by the names in its first 4 KB)."""
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dest, "w") as out:
        changed = []
        for n in z.namelist():
            data = z.read(n)
            edited = edit(n, data)
            if edited == data:
                out.writestr(n, data)
            else:
                changed.append((n, edited))
        for n, data in changed:
            out.writestr(n, data)
    return dest


def pt_with(src, dest, suffix, edit):
    """A copy of the TorchScript .pt src with edit(bytes) -> bytes on the entry ending in suffix."""
    return pt2_with(src, dest, lambda n, d: edit(d) if n.endswith(suffix) else d)


PT2 = os.path.join(DATA, "fixtures", "export", "small_mlp.pt2")
PT = os.path.join(DATA, "torchscript", "mlp.pt")
GRAPH = os.path.join(DATA, "fixtures", "graphs", "resnet18_infer.txt")
TRACE_RUN = os.path.join(DATA, "fixtures", "traces", "basic_cold")


def graph_with_sizes(dims):
    return ('class GraphModule(torch.nn.Module):\n'
            '    def forward(self, x: "f32[%s]"):\n'
            '        relu: "f32[4]" = torch.ops.aten.relu.default(x);  x = None\n'
            '        return (relu,)\n' % dims).encode()


def attack_inject(rng, n, new_case):
    payloads = injection_payloads("")
    out = []
    for k in range(n):
        case = new_case("inject")
        marker = os.path.join(case["scratch"], MARKER)
        payload = injection_payloads(marker)[(k // 2) % len(payloads)]  # each as name and id
        dump = os.path.join(case["scratch"], "dump")
        oracle = {"marker": marker, "payload": payload, "dump": dump}
        if k % 2 == 0:  # a node name in the .pt2 program (the tensor "gelu", renamed everywhere)
            quoted = json.dumps(payload).encode()
            dest = pt2_with(PT2, os.path.join(case["scratch"], "inject.pt2"),
                            lambda name, d: d.replace(b'"gelu"', quoted)
                            if name.endswith("models/model.json") else d)
            args = ["compile", dest, "--auto", "--json", "--repeat", "1", "--dump", dump]
        else:  # a region id in a project
            dest = os.path.join(case["scratch"], "inject.fxscope")
            project = {"schema": 1, "kind": "fxscope-project",
                       "source": {"path": PT2, "sha256": ""}, "view_state": {},
                       "regions": [{"id": payload, "name": payload,
                                    "nodes": ["linear", "layer_norm", "gelu"]}]}
            open(dest, "w").write(json.dumps(project))
            args = ["compile", PT2, "--project", dest, "--json", "--repeat", "1", "--dump", dump]
        out.append(dict(case, args=args, input=dest, oracle=oracle))
    return out


def attack_nesting(rng, n, new_case):
    makers = []

    def pt2_program(case):
        deep = b'"arg": {"as_weird": ' + deep_array(100000) + b'}'  # a node's argument
        return ["inspect", pt2_with(PT2, os.path.join(case["scratch"], "deep.pt2"),
                                    lambda name, d: d.replace(
                                        b'"arg": {"as_tensor": {"name": "p_fc1_bias"}}', deep, 1)
                                    if name.endswith("models/model.json") else d), "--json"]

    def project(case):
        dest = os.path.join(case["scratch"], "deep.fxscope")
        open(dest, "wb").write(b'{"schema": 1, "regions": [], "view_state": {"a": ' +
                               deep_array(100000) + b'}}')
        return ["partition", GRAPH, "--project", dest, "--json"]

    def metrics(case):
        log = os.path.join(TRACE_RUN, sorted(os.listdir(TRACE_RUN))[0])
        data = open(log, "rb").read().replace(b'"fail_reason": null',
                                              b'"fail_reason": ' + deep_array(100000), 1)
        dest = os.path.join(case["scratch"], "deep.log")
        open(dest, "wb").write(data)
        return [rng.choice(["compile-profile", "diagnose", "inspect"]), dest, "--json"]

    def size_expr(case):
        dims = rng.choice(["(" * 100000 + "4" + ")" * 100000, "- " * 20000 + "4",
                           "1" + "**1" * 20000])
        dest = os.path.join(case["scratch"], "deep.txt")
        open(dest, "wb").write(graph_with_sizes(dims))
        return ["run", dest, "--json"]

    def torchscript_chain(case):
        chain = rng.choice([b"- " * 20000 + b"_0", b"not " * 20000 + b"_0",
                            b"_0" + b" + _0" * 20000, b"_0" + b" ** _0" * 20000])
        dest = pt_with(PT, os.path.join(case["scratch"], "chain.pt"), "code/__torch__.py",
                       lambda d: d.replace(b"return _0", b"return " + chain, 1))
        return ["inspect", dest, "--json"]

    def pickle_depth(case):
        depth = 200000
        pkl = rng.choice([b"\x80\x02)" + b"\x85" * depth + b".",
                          b"\x80\x02" + b"](" * depth + b"e" * depth + b"."])
        dest = pt_with(PT, os.path.join(case["scratch"], "deep.pt"), "data.pkl", lambda d: pkl)
        return ["inspect", dest, "--json"]

    makers = [pt2_program, project, metrics, size_expr, torchscript_chain, pickle_depth]
    out = []
    for k in range(n):
        case = new_case("nesting")
        args = makers[k % len(makers)](case)
        out.append(dict(case, args=args, input=args[1], oracle={}))
    return out


INT_EDGES = ["(-9223372036854775807 - 1) // -1", "(-9223372036854775807 - 1) % -1", "4 % 0",
             "4 // 0", "4 // (2 - 2)", "99999999999999999999", "9223372036854775807 + 1",
             "-9223372036854775808 * -1", "2**64", "2**-1", "-(-9223372036854775807 - 1)",
             "4294967296 * 4294967296"]


def attack_integers(rng, n, new_case):
    out = []
    for k in range(n):
        case = new_case("integers")
        edge = INT_EDGES[k % len(INT_EDGES)]
        if k % 3 == 2:  # the same through --size
            args = ["run", os.path.join(DATA, "recorded", "export", "mlp_dynamic_graph.txt"),
                    "--json", "--size", "s77=" + rng.choice(["99999999999999999999",
                                                             "-9223372036854775808", "0", "-1"])]
        else:
            dest = os.path.join(case["scratch"], "int.txt")
            open(dest, "wb").write(graph_with_sizes(edge + ", 4"))
            args = ["run", dest, "--json"]
        out.append(dict(case, args=args, input=args[1], oracle={}))
    return out


def gzip_bomb(path, inflated=3 << 30):
    """A gzip of `inflated` bytes of spaces (about 3 MB on disk), made once."""
    if not os.path.exists(path):
        chunk = b" " * (16 << 20)
        with gzip.open(path, "wb", compresslevel=9) as f:
            for _ in range(inflated // len(chunk)):
                f.write(chunk)
    return path


def attack_sizes(rng, n, new_case, work):
    out = []
    bomb = gzip_bomb(os.path.join(work, "bomb.txt.gz"))
    for k in range(n):
        case = new_case("sizes")
        which = k % 3
        if which == 0:  # weights declaring 2^40-element tensors
            huge = b'{"as_int": %d}' % rng.choice([1 << 40, 1 << 62, (1 << 63) - 1])
            dest = pt2_with(PT2, os.path.join(case["scratch"], "huge.pt2"),
                            lambda name, d: re.sub(rb'\{"as_int": 32\}', huge, d)
                            if name.endswith(".json") else d)
            args = [rng.choice(["run", "inspect"]), dest, "--json"]
        elif which == 1:  # a size expression that evaluates to an enormous input
            dest = os.path.join(case["scratch"], "big.txt")
            open(dest, "wb").write(graph_with_sizes("4294967296, 4294967296"))
            args = ["run", dest, "--json"]
        else:
            args = [rng.choice(["inspect", "structure"]), bomb, "--json"]
        out.append(dict(case, args=args, input=args[1], oracle={"rss": True}))
    return out


def attack_fifo(rng, n, new_case):
    out = []
    for k in range(n):
        case = new_case("fifo")
        fifo = os.path.join(case["scratch"], "pipe")
        os.mkfifo(fifo)
        args = [["run", GRAPH, "--inputs", fifo, "--json"],
                ["inspect", fifo, "--json"],
                ["partition", GRAPH, "--auto", "--save-project", fifo],
                ["profile", GRAPH, "--repeat", "1", "--eager-only", "--save", fifo],
                ["partition", GRAPH, "--auto", "--plan", fifo]][k % 5]
        out.append(dict(case, args=args, input=fifo, oracle={}))
    return out


def check_oracle(case, verdict, rss_mb, max_rss_mb):
    """The verdict once the case's own oracle (marker, leak, rss) has been asked."""
    oracle = case["oracle"]
    if "marker" in oracle and os.path.exists(oracle["marker"]):
        return "marker"
    if "payload" in oracle and os.path.isdir(oracle["dump"]):
        needle = oracle["payload"].encode("utf-8", "surrogatepass")
        for root, _, files in os.walk(oracle["dump"]):
            for f in files:
                if needle in open(os.path.join(root, f), "rb").read():
                    return "leak"
    if rss_mb > max_rss_mb:
        return "rss"
    return verdict


def attack_cases(o, rng, work):
    counter = [0]

    def new_case(cls):
        counter[0] += 1
        scratch = os.path.join(work, "a%05d" % counter[0])
        os.makedirs(scratch)
        return {"id": "a%05d" % counter[0], "cls": cls, "scratch": scratch}

    cases = []
    for cls in o.classes:
        if cls == "inject":
            cases += attack_inject(rng, o.attacks, new_case)
        elif cls == "nesting":
            cases += attack_nesting(rng, o.attacks, new_case)
        elif cls == "integers":
            cases += attack_integers(rng, o.attacks, new_case)
        elif cls == "sizes":
            cases += attack_sizes(rng, o.attacks, new_case, work)
        elif cls == "fifo":
            cases += attack_fifo(rng, o.attacks, new_case)
    return cases


def fifo_command(rng, kind, mutant, scratch):
    """A command given a FIFO (nothing writes or reads its other end) as an input or output
    file: it must refuse it at once, never block (issue 31)."""
    fifo = os.path.join(scratch, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    graph = mutant if kind in ("code", "pt2", "pt") else os.path.join(DATA, "fixtures", "graphs",
                                                                     "resnet18_infer.txt")
    return rng.choice([["run", graph, "--inputs", fifo],
                       ["partition", graph, "--auto", "--save-project", fifo],
                       ["profile", graph, "--eager-only", "--repeat", "1", "--save", fifo],
                       ["inspect", mutant, fifo, "--json"]])


def run_one(cli, args, timeout, scratch):
    """(verdict, exit code, seconds, peak RSS in MiB) of one command; output in scratch/out.*"""
    start = time.monotonic()
    out_path = os.path.join(scratch, "out.%d" % threading.get_ident())
    with open(out_path + ".stdout", "wb") as out, open(out_path + ".stderr", "wb") as err:
        p = subprocess.Popen([cli] + args, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             cwd=scratch, start_new_session=True,
                             env=dict(os.environ, FXSCOPE_CACHE_DIR=os.path.join(scratch, "cache")))
        status, usage = wait_with_usage(p, timeout)
    seconds = time.monotonic() - start
    rss_mb = usage.ru_maxrss / 1024.0 if usage else 0.0
    if status is None:
        return "hang", None, seconds, rss_mb
    rc = os.waitstatus_to_exitcode(status)
    if rc < 0 or rc >= 128:
        return "crash", rc, seconds, rss_mb
    stdout = open(out_path + ".stdout", "rb").read()
    if "--json" in args and rc in (0, 1, 2, 3) and stdout.strip():
        try:
            json.loads(stdout.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return "badjson", rc, seconds, rss_mb
    return "ok", rc, seconds, rss_mb


def wait_with_usage(p, timeout):
    """(wait status, rusage) of p, or (None, rusage) after killing it at the timeout."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return status, usage
        if time.monotonic() > deadline:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, _, usage = os.wait4(p.pid, 0)
            p.returncode = -9
            return None, usage
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


CLASSES = ["random", "inject", "nesting", "integers", "sizes", "fifo"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--mutants", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--classes", default=",".join(CLASSES),
                    help="comma-separated: " + ", ".join(CLASSES))
    ap.add_argument("--attacks", type=int, default=12, help="cases per attack class")
    ap.add_argument("--max-rss-mb", type=float, default=2048.0,
                    help="peak memory of one command above which it is a failure (rss)")
    ap.add_argument("--out", required=True)
    o = ap.parse_args()
    o.cli = os.path.abspath(o.cli)
    o.classes = [c for c in o.classes.split(",") if c]
    unknown = set(o.classes) - set(CLASSES)
    if unknown:
        ap.error("unknown classes: " + ", ".join(sorted(unknown)))
    rng = random.Random(o.seed)
    seeds = fixtures()
    os.makedirs(o.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fxs-mutants-")
    plan = []  # (case, args): case has id, cls, scratch, input, oracle
    for i in range(o.mutants if "random" in o.classes else 0):
        kind, path = rng.choice(seeds)
        mutant = make_mutant(rng, kind, path, seeds, work, i)
        scratch = os.path.join(work, "s%05d" % i)
        os.makedirs(scratch)
        case = {"id": "m%05d" % i, "cls": "random", "scratch": scratch, "input": mutant,
                "oracle": {}}
        for args in commands(rng, kind, mutant, path, scratch):
            plan.append((case, args))
    for case in attack_cases(o, rng, work):
        plan.append((case, case["args"]))
    verdicts = ["ok", "crash", "hang", "badjson", "marker", "leak", "rss"]
    counts = {v: 0 for v in verdicts}
    by_command = {}
    by_class = {}
    failures = []
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as pool:
        futures = {pool.submit(run_one, o.cli, args, o.timeout, case["scratch"]): (case, args)
                   for case, args in plan}
        for f in concurrent.futures.as_completed(futures):
            case, args = futures[f]
            verdict, rc, seconds, rss_mb = f.result()
            verdict = check_oracle(case, verdict, rss_mb, o.max_rss_mb)
            counts[verdict] += 1
            for table, key in ((by_command, args[0]), (by_class, case["cls"])):
                c = table.setdefault(key, {"runs": 0, "failed": 0})
                c["runs"] += 1
                c["failed"] += verdict != "ok"
            if verdict != "ok":
                keep = os.path.join(o.out, "failures", case["id"])
                os.makedirs(keep, exist_ok=True)
                if os.path.isfile(case["input"]):
                    shutil.copy(case["input"], keep)
                for name in os.listdir(case["scratch"]):
                    if name.startswith("out.") and name.endswith(".stderr"):
                        shutil.copy(os.path.join(case["scratch"], name), keep)
                failures.append({"case": case["id"], "class": case["cls"], "verdict": verdict,
                                 "rc": rc, "seconds": round(seconds, 1),
                                 "rss_mb": round(rss_mb), "args": args})
    report = {"mutants": o.mutants if "random" in o.classes else 0, "runs": len(plan),
              "seconds": round(time.monotonic() - started), "seed": o.seed,
              "timeout_s": o.timeout, "classes": o.classes, "attacks": o.attacks,
              "max_rss_mb": o.max_rss_mb, "counts": counts, "by_command": by_command,
              "by_class": by_class, "failures": failures}
    json.dump(report, open(os.path.join(o.out, "report.json"), "w"), indent=1)
    print(json.dumps({k: v for k, v in report.items() if k != "failures"}))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
