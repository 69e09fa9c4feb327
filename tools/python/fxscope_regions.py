"""Apply an fxscope region plan inside torch.compile (PyTorch >= 2.9).

fxscope draws regions on a printed FX graph and writes them as a region plan
(``fxscope-cli partition GRAPH --plan plan.json``). This module reads such plans and gives a
``torch.compile`` backend that, for every FX graph AOTAutograd hands it (forward and backward),

1. picks the plan whose nodes match the graph (by node name and op),
2. marks each planned node with ``node.meta["custom"]["compile_with_inductor"] = value``,
   matching by node name, and by source line (``node.meta["stack_trace"]``) as a reported
   fallback when a name is missing or names another op,
3. calls ``torch.fx.passes.regional_inductor.regional_inductor`` on the graph, which compiles
   each marked region with Inductor and leaves the rest to run eagerly.

Usage::

    from fxscope_regions import fxscope_backend
    backend = fxscope_backend(["fw.plan.json", "bw.plan.json"])
    compiled = torch.compile(model, backend=backend)
    ...
    print(backend.report)          # what was marked, how, and what did not match

Not a partitioner: the regions come from fxscope; PyTorch's own regional inductor decides how
marked nodes are grouped (in 2.11: runs of consecutive marked nodes).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence, Union

KEY = "compile_with_inductor"
PLAN_FORMAT = "fxscope-region-plan"
PLAN_VERSION = 1

_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def load_plan(path: str) -> dict:
    """Reads and checks a region plan; raises ValueError for anything else."""
    with open(path, encoding="utf-8") as f:
        plan = json.load(f)
    if plan.get("format") != PLAN_FORMAT:
        raise ValueError(f"{path}: not an fxscope region plan (format={plan.get('format')!r})")
    if int(plan.get("version", 0)) > PLAN_VERSION:
        raise ValueError(f"{path}: plan version {plan['version']} is newer than {PLAN_VERSION}")
    plan["_path"] = path
    return plan


def _target_name(node) -> str:
    """'aten::mul.Tensor' for OpOverloads (the plan's spelling), 'module.name' otherwise."""
    target = node.target
    name = getattr(target, "name", None)
    if callable(name):
        try:
            return name()
        except Exception:  # noqa: BLE001 - any odd target: fall back to its qualified name
            pass
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", "") or ""
    return f"{module}.{getattr(target, '__name__', repr(target))}"


def _base(target: str) -> str:
    """'aten::mul.Tensor' -> 'mul'; '_operator.getitem' -> 'getitem'."""
    if "::" in target:
        return target.split("::", 1)[1].split(".", 1)[0]
    return target.rsplit(".", 1)[-1]


def _same_op(node, planned_target: str) -> bool:
    actual = _target_name(node)
    return actual == planned_target or _base(actual) == _base(planned_target)


def _source_of(node) -> Optional[tuple[str, int]]:
    """(file basename, line) of the innermost frame in node.meta['stack_trace']."""
    trace = node.meta.get("stack_trace") or ""
    frames = _FRAME.findall(trace)
    if not frames:
        return None
    file, line = frames[-1]
    return os.path.basename(file), int(line)


@dataclass
class GraphReport:
    """What happened to one FX graph."""

    index: int
    nodes: int
    plan: Optional[str] = None  # the plan applied, or None when none matched
    score: float = 0.0  # share of the plan's nodes found by name with the same op
    marked: dict = field(default_factory=dict)  # region id -> nodes marked
    by_line: list = field(default_factory=list)  # (planned name, node marked instead)
    unmatched: list = field(default_factory=list)  # planned names not found at all
    cleared: list = field(default_factory=list)  # nodes whose earlier mark was removed
    graph_code: str = ""  # gm.print_readable(...) of the graph as received


@dataclass
class Report:
    graphs: list = field(default_factory=list)

    def __str__(self) -> str:
        lines = []
        for g in self.graphs:
            head = f"graph {g.index} ({g.nodes} nodes): "
            if g.plan is None:
                lines.append(head + "no plan matches; left unmarked")
                continue
            marked = ", ".join(f"{r}: {n}" for r, n in g.marked.items())
            lines.append(head + f"plan {os.path.basename(g.plan)} (match {g.score:.0%}); "
                         f"marked {marked}")
            for name, other in g.by_line:
                lines.append(f"  by source line: {name} -> {other}")
            if g.unmatched:
                lines.append(f"  not found: {', '.join(g.unmatched)}")
            if g.cleared:
                lines.append(f"  cleared earlier marks on: {', '.join(g.cleared)}")
        return "\n".join(lines)


def match_score(gm, plan: dict) -> float:
    """Share of the plan's nodes that the graph has by name, with the same op."""
    by_name = {n.name: n for n in gm.graph.nodes}
    planned = [e for r in plan["regions"] for e in r["nodes"]]
    if not planned:
        return 0.0
    hits = sum(1 for e in planned if e["name"] in by_name and _same_op(by_name[e["name"]],
                                                                        e["target"]))
    return hits / len(planned)


def _by_line(gm, entry: dict, taken: set):
    """Nodes at the entry's source line with the same op, not yet marked."""
    if not entry.get("file") or not entry.get("line"):
        return []
    want = (os.path.basename(entry["file"]), int(entry["line"]))
    return [n for n in gm.graph.nodes
            if n.op not in ("placeholder", "output") and n not in taken
            and _source_of(n) == want and _same_op(n, entry["target"])]


def mark_graph(gm, plan: dict, report: GraphReport, replace: bool = True) -> None:
    """Marks the plan's nodes in gm (see module doc). replace: clear marks the plan lacks."""
    by_name = {n.name: n for n in gm.graph.nodes}
    taken = set()
    for region in plan["regions"]:
        value = region["value"]
        count = 0
        for entry in region["nodes"]:
            node = by_name.get(entry["name"])
            if node is not None and node.op not in ("placeholder", "output") \
                    and _same_op(node, entry["target"]):
                found = [node]
            else:
                found = _by_line(gm, entry, taken)
                report.by_line.extend((entry["name"], n.name) for n in found)
                if not found:
                    report.unmatched.append(entry["name"])
            for n in found:
                n.meta.setdefault("custom", {})[KEY] = value
                taken.add(n)
                count += 1
        report.marked[region["id"]] = count
    if replace:
        for n in gm.graph.nodes:
            custom = n.meta.get("custom")
            if n not in taken and isinstance(custom, dict) and KEY in custom:
                del custom[KEY]
                report.cleared.append(n.name)


class FxscopeBackend:
    """Callable torch.compile backend; see fxscope_backend()."""

    def __init__(self, plans: Sequence[dict], min_score: float, replace: bool,
                 compile_regions: bool, verbose: bool):
        self.plans = list(plans)
        self.min_score = min_score
        self.replace = replace
        self.compile_regions = compile_regions
        self.verbose = verbose
        self.report = Report()
        from torch._dynamo.backends.common import aot_autograd
        self._aot = aot_autograd(fw_compiler=self._compile, bw_compiler=self._compile)

    def __call__(self, gm, example_inputs):
        return self._aot(gm, example_inputs)

    def _compile(self, gm, example_inputs):
        rep = GraphReport(index=len(self.report.graphs), nodes=len(gm.graph.nodes))
        rep.graph_code = gm.print_readable(print_output=False, include_stride=True,
                                           include_device=True)
        self.report.graphs.append(rep)
        scored = sorted(((match_score(gm, p), i) for i, p in enumerate(self.plans)),
                        reverse=True)
        if scored and scored[0][0] >= self.min_score:
            rep.score, best = scored[0]
            rep.plan = self.plans[best].get("_path", f"plan {best}")
            mark_graph(gm, self.plans[best], rep, self.replace)
        if self.verbose:
            print(f"[fxscope] {Report([rep])}", flush=True)
        if not self.compile_regions:
            return gm
        from torch.fx.passes.regional_inductor import regional_inductor
        return regional_inductor(gm, example_inputs)


def fxscope_backend(plans: Union[str, dict, Iterable[Union[str, dict]]], *,
                    min_score: float = 0.5, replace: bool = True,
                    compile_regions: bool = True, verbose: bool = False) -> FxscopeBackend:
    """A torch.compile backend that applies fxscope region plans.

    plans: plan paths or loaded plans (one per graph: forward, backward, ...). Each graph gets
    the plan that matches it best, if at least min_score of the plan's nodes are found by name
    with the same op; other graphs run unmarked. replace: remove compile_with_inductor marks the
    plan does not have (e.g. from fx.traceback.annotate in the source). compile_regions=False
    only marks (for inspection). The result's .report says what was marked and how.
    """
    if isinstance(plans, (str, dict)):
        plans = [plans]
    loaded = [load_plan(p) if isinstance(p, str) else p for p in plans]
    return FxscopeBackend(loaded, min_score, replace, compile_regions, verbose)
