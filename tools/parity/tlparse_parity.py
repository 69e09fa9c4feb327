#!/usr/bin/env python3
"""Does fxscope-cli read tlparse's own test logs as tlparse's integration tests say they are?

Usage: tlparse_parity.py TLPARSE_CHECKOUT [FXSCOPE_CLI]
TLPARSE_CHECKOUT is a checkout of pytorch/tlparse (its tests/inputs/ is read, nothing copied into
fxscope). FXSCOPE_CLI defaults to build/app/cli/fxscope-cli. Each case states the facts
tests/integration_test.rs establishes for one input (compile ids, graphs, ranks, breaks,
failures, divergence or none), plus "no errors" wherever tlparse parses the log strictly. Prints
one line per case and "N of M inputs agree"; exit 0 when all available inputs agree.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

CHECKOUT = sys.argv[1] if len(sys.argv) > 1 else None
CLI = sys.argv[2] if len(sys.argv) > 2 else "build/app/cli/fxscope-cli"


def run_json(*args):
    p = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True, timeout=600)
    try:
        return json.loads(p.stdout), p
    except json.JSONDecodeError:
        return None, p


class Case:
    def __init__(self, path):
        self.path = path
        self._inspect = self._diagnose = None

    @property
    def inspect(self):
        if self._inspect is None:
            self._inspect, _ = run_json("inspect", self.path)
        return self._inspect

    @property
    def diagnose(self):
        if self._diagnose is None:
            self._diagnose, _ = run_json("diagnose", self.path)
        return self._diagnose


def errors_of(c, allowed=()):
    """Errors of inspect and diagnose (counted alike), leaving out those whose message holds
    one of `allowed`; None when there are none."""
    i, d = c.inspect, c.diagnose
    if i is None or d is None:
        return "no JSON (crash or unreadable)"
    if i["problems"] != d["problems"]:
        return f"inspect counts {i['problems']}, diagnose {d['problems']}"
    left = [e for e in i["errors"] if e["severity"] == "error"
            and not any(a in e["message"] for a in allowed)]
    if left:
        return f"{len(left)} error(s); first: {left[0]['where']}: {left[0]['message'][:120]}"
    return None


def clean(c):
    """tlparse parses the log with strict: true (any glog, JSON or MD5 failure fails it)."""
    return errors_of(c)


def tolerant(c):
    """tlparse reads the log without strict: payloads whose MD5 does not match (edited test
    data) are counted, not failed; nothing else may be an error."""
    return errors_of(c, allowed=("MD5 does not match",))


def compile_ids(c):
    return {g["compile_id"] for g in c.inspect["graphs"] if g["compile_id"]}


def graph_kinds(c, cid):
    return {g["kind"] for g in c.inspect["graphs"] if g["compile_id"] == cid}


def ranks(c):
    return sorted({r for run in c.diagnose["runs"] for r in run["ranks"]})


def expect(cond, why):
    return None if cond else why


def all_of(*checks):
    for ch in checks:
        r = ch()
        if r:
            return r
    return None


def single(name, *facts, label=None):
    return (label or name, [name], lambda base: Case(os.path.join(base, name)), facts)


def ranks_dir(name, files, *facts):
    """A temporary rank folder: {dest name: source path relative to tests/inputs}."""
    def make(base):
        tmp = tempfile.mkdtemp(prefix="parity_")
        for dest, src in files.items():
            shutil.copy(os.path.join(base, src), os.path.join(tmp, dest))
        return Case(tmp)
    return (name, list(files.values()), make, facts)


def rank_log(n):
    return f"dedicated_log_torch_trace_rank_{n}.log"


PROVENANCE = ["inductor_provenance_aot_cuda_log.txt",
              "inductor_provenance_aot_debug_handle_log.txt",
              "inductor_provenance_aot_log.txt", "inductor_provenance_aot_log_old.txt",
              "inductor_provenance_jit_cuda_log.txt", "inductor_provenance_jit_log.txt",
              "inductor_provenance_jit_debug_handle_log.txt", "inductor_provenance_long_log.txt",
              "inductor_provenance_extended_log.txt"]

CASES = [
    single("simple.log", clean,
           lambda c: expect({"dynamo_output_graph", "inductor_post_grad_graph"}
                            <= graph_kinds(c, "0/0") and
                            graph_kinds(c, "0/0") & {"aot_forward_graph", "aot_inference_graph"},
                            f"0/0 lacks its graphs: {graph_kinds(c, '0/0')}")),
    single("simple_corrupted_json.log",
           lambda c: expect(c.inspect is not None and c.inspect["problems"]["errors"] >= 1,
                            "the corrupted envelope is not reported"),
           lambda c: expect("0/0" in compile_ids(c), "the rest of the log was not read")),
    single("comp_metrics.log", clean,
           lambda c: expect({"0/0", "1/0", "2/0"} <= {i for f in c.diagnose["frames"]
                                                     for i in f["compile_ids"]},
                            "frames 0/0, 1/0, 2/0 not all found"),
           lambda c: expect(sum(b["count"] for b in c.diagnose["graph_breaks"]) == 2,
                            f"graph breaks: {c.diagnose['graph_breaks']}")),
    single("comp_failure.log", clean,
           lambda c: expect(any(f["fail_type"] == "BackendCompilerFailed" and
                                f["compile_id"] == "0/0" for f in c.diagnose["failures"]),
                            f"failures: {c.diagnose['failures']}")),
    single("artifacts.log", clean),
    single("chromium_events.log", clean,
           lambda c: expect(c.diagnose["frames"], "no frame timed")),
    single("cache_hit_miss.log", clean,
           lambda c: expect({"hit", "cold_miss"} <= {r["class"] for r in c.diagnose["cache"]},
                            "hits and misses not both found")),
    single("export.log", clean,
           lambda c: expect(c.diagnose["export_failures"], "no export failure")),
    single("export_guard_added.log", clean,
           lambda c: expect(any(f["failure_type"] == "guard_evaluated"
                                for f in c.diagnose["export_failures"]), "no evaluated guard")),
    *[single(p, tolerant) for p in PROVENANCE],
    single("links.log", tolerant,
           lambda c: expect(any(l["name"] == "manifold_url" for l in c.inspect["links"]),
                            "link not kept")),
    single("autotune_with_compile_id.log", tolerant),
    single("multi_rank_logs", tolerant,
           lambda c: expect(ranks(c) == [0, 1, 2, 3], f"ranks {ranks(c)}")),
    single("multi_rank_messy_input", tolerant,
           lambda c: expect(ranks(c) == [0, 1], f"ranks {ranks(c)}")),
    single("multi_rank_runtime", tolerant,
           lambda c: expect(ranks(c) == list(range(7)), f"ranks {ranks(c)}")),
    single("multi_rank_schedule", tolerant,
           lambda c: expect(ranks(c) == [0, 1, 2], f"ranks {ranks(c)}")),
    single("collectives_parity", tolerant,
           lambda c: expect(ranks(c) == [0], f"ranks {ranks(c)}")),
    single("multi_rank_logs",
           lambda c: expect(any(v["what"] == "compiled on some ranks only"
                                for v in c.diagnose["divergence"]), "no compile id divergence"),
           label="multi_rank_logs: diverging compile ids"),
    ranks_dir("simple.log on 2 ranks: no divergence",
              {rank_log(0): "simple.log", rank_log(1): "simple.log"}, clean,
              lambda c: expect(not c.diagnose["divergence"], f"{c.diagnose['divergence'][:2]}")),
    ranks_dir("cache_hit_miss + simple: cache divergence",
              {rank_log(0): "cache_hit_miss.log", rank_log(1): "simple.log"},
              lambda c: expect(c.diagnose["divergence"], "no divergence")),
    ranks_dir("cache_hit_miss on 2 ranks: no divergence",
              {rank_log(0): "cache_hit_miss.log", rank_log(1): "cache_hit_miss.log"}, clean,
              lambda c: expect(not c.diagnose["divergence"], f"{c.diagnose['divergence'][:2]}")),
    single("multi_rank_runtime",
           lambda c: expect(any({"5", "6"} <= set(v["detail"]) and
                                v["detail"]["5"] == v["detail"]["6"] != v["detail"].get("0")
                                for v in c.diagnose["divergence"]), "ranks 5, 6 not set apart"),
           label="multi_rank_runtime: ranks 5, 6 diverge"),
    ranks_dir("schedule ranks 0 and 2: no divergence",
              {rank_log(0): "multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log",
               rank_log(2): "multi_rank_schedule/dedicated_log_torch_trace_rank_2.log"},
              tolerant,
              lambda c: expect(not c.diagnose["divergence"], f"{c.diagnose['divergence'][:2]}")),
    ranks_dir("runtime ranks 0-3: no divergence",
              {rank_log(n): f"multi_rank_runtime/{rank_log(n)}" for n in range(4)}, tolerant,
              lambda c: expect(not c.diagnose["divergence"], f"{c.diagnose['divergence'][:2]}")),
]


def main():
    if not CHECKOUT:
        print(__doc__)
        return 2
    base = os.path.join(CHECKOUT, "tests", "inputs")
    agree = available = 0
    for name, needs, make, facts in CASES:
        if not all(os.path.exists(os.path.join(base, n)) for n in needs):
            print(f"SKIP  {name}: not in the checkout")
            continue
        available += 1
        case = make(base)
        why = None
        try:
            why = all_of(*[lambda f=f: f(case) for f in facts])
        except (KeyError, TypeError, IndexError) as e:
            why = f"unexpected output ({type(e).__name__}: {e})"
        agree += why is None
        print(f"{'OK  ' if why is None else 'FAIL'}  {name}" + (f": {why}" if why else ""))
    print(f"{agree} of {available} inputs agree ({len(CASES)} cases)")
    return 0 if agree == available else 1


if __name__ == "__main__":
    sys.exit(main())
