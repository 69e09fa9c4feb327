# The results run_rounds (record_graphs.sh) leaves for the benchmarks that read them
# (run_variants.sh, tuning_sweep.sh): per model, variant and round, the forward's and the
# backward's `run --json`.
import json
import os
import re
import statistics

# fxscope's generated kernels by form (codegen::describeKernel's names): pw, row or col.
GENERATED = re.compile(r"fx\d+(?:_\d+)?_(pw|row|col)_")


def med(xs, f="%.4f"):
    """Median (min-max) of xs, each as f; n/a when empty."""
    return (f + " (" + f + "-" + f + ")") % (statistics.median(xs), min(xs), max(xs)) \
        if xs else "n/a"


def step(w, m, i, r, need, say=None):
    """The forward's and backward's results (the forward's alone for an inference model, which
    has no backward run) of model m, variant i, round r under folder w, or
    None when one is missing, unreadable, failed or lacks the field `need`; `say` (if given) is
    told why."""
    parts = []
    for part in ("fw", "bw"):
        base = "%s/%s.%d.%d.%s" % (w, m, i, r, part)
        if part == "bw" and parts and not os.path.exists(base + ".err"):
            break  # an inference model: no backward was run
        try:
            j = json.load(open(base + ".json"))
        except (OSError, ValueError):
            if say:
                say("round %d %s: no result: %s" % (r, part, open(base + ".err").read()[-600:]))
            return None
        if not j.get("ok", True) or j.get(need) is None:
            if say:
                say("round %d %s failed: %s" % (r, part, json.dumps(j.get("error"))[:600]))
            return None
        parts.append((part, j))
    return parts


def max_abs_err(j):
    """The largest max_abs_err over a result's outputs (0 when none is compared)."""
    return max([o["max_abs_err"] for o in j.get("outputs", [])
                if o.get("max_abs_err") is not None] or [0.0])
