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
Deterministic for a given --seed. Needs only the Python standard library.

  tools/fuzz/mutation_campaign.py --cli build/app/cli/fxscope-cli --mutants 1500 --out /tmp/mc
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
    start = time.monotonic()
    try:
        p = subprocess.run([cli] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout, cwd=scratch,
                           env=dict(os.environ, FXSCOPE_CACHE_DIR=os.path.join(scratch, "cache")))
    except subprocess.TimeoutExpired:
        return "hang", None, time.monotonic() - start
    rc = p.returncode
    if rc < 0 or rc >= 128:
        return "crash", rc, time.monotonic() - start
    if "--json" in args and rc in (0, 1, 2, 3) and p.stdout.strip():
        try:
            json.loads(p.stdout.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return "badjson", rc, time.monotonic() - start
    return "ok", rc, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--mutants", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", required=True)
    o = ap.parse_args()
    o.cli = os.path.abspath(o.cli)
    rng = random.Random(o.seed)
    seeds = fixtures()
    os.makedirs(o.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fxs-mutants-")
    plan = []
    for i in range(o.mutants):
        kind, path = rng.choice(seeds)
        mutant = make_mutant(rng, kind, path, seeds, work, i)
        scratch = os.path.join(work, "s%05d" % i)
        os.makedirs(scratch)
        for args in commands(rng, kind, mutant, path, scratch):
            plan.append((i, kind, args, scratch))
    counts = {"ok": 0, "crash": 0, "hang": 0, "badjson": 0}
    by_command = {}
    failures = []
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as pool:
        futures = {pool.submit(run_one, o.cli, args, o.timeout, scratch): (i, args)
                   for i, kind, args, scratch in plan}
        for f in concurrent.futures.as_completed(futures):
            i, args = futures[f]
            verdict, rc, _ = f.result()
            counts[verdict] += 1
            c = by_command.setdefault(args[0], {"runs": 0, "failed": 0})
            c["runs"] += 1
            if verdict != "ok":
                c["failed"] += 1
                keep = os.path.join(o.out, "failures", "m%05d" % i)
                os.makedirs(keep, exist_ok=True)
                shutil.copy(args[1], keep)
                failures.append({"mutant": i, "verdict": verdict, "rc": rc, "args": args})
    report = {"mutants": o.mutants, "runs": len(plan), "seconds": round(time.monotonic() - started),
              "seed": o.seed, "timeout_s": o.timeout, "counts": counts, "by_command": by_command,
              "failures": failures}
    json.dump(report, open(os.path.join(o.out, "report.json"), "w"), indent=1)
    print(json.dumps({k: v for k, v in report.items() if k != "failures"}))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
