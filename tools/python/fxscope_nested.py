"""Apply an fxscope nested-region plan: compile one repeated block once and reuse it.

``fxscope-cli partition GRAPH --nested plan.json`` finds the model's repeated blocks (the N
identical decoder layers of a transformer) and writes a nested-region plan: for each group of
identical modules, the module class (when the graph says it, e.g. from a ``.pt2``'s
``nn_module_stack``) and the instance paths. ``apply_nested_plan(model, plan)`` wraps their
``forward`` in ``torch.compiler.nested_compile_region`` (PyTorch >= 2.8), so ``torch.compile``
traces the block once as an ``invoke_subgraph`` body and reuses it for every instance instead of
compiling N copies inline.

Usage::

    from fxscope_nested import apply_nested_plan
    report = apply_nested_plan(model, "nested.plan.json")
    print(report)                  # what was wrapped, how, and what did not match
    compiled = torch.compile(model)

How a group is wrapped, in order of preference:

1. by class: every instance found is an instance of one class whose qualified name is the
   plan's ``module_class`` (or, when the plan names none, of one common class): the class's
   ``forward`` is wrapped once, so all its instances share one region;
2. by instance: instances of differing classes get their own wrapped forward each (reuse then
   only among instances whose class matches).

Instances the model does not have, and classes whose forward is already wrapped, are reported;
nothing is guessed from names that do not resolve. ``undo()`` on the report restores every
forward it replaced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

PLAN_FORMAT = "fxscope-nested-plan"
PLAN_VERSION = 1
_WRAPPED = "__fxscope_nested_region__"


def load_plan(path: str) -> dict:
    """Reads and checks a nested-region plan; raises ValueError for anything else."""
    with open(path, encoding="utf-8") as f:
        plan = json.load(f)
    check_plan(plan, path)
    plan["_path"] = path
    return plan


def check_plan(plan: dict, where: str = "plan") -> None:
    if plan.get("format") != PLAN_FORMAT:
        raise ValueError(f"{where}: not an fxscope nested-region plan "
                         f"(format={plan.get('format')!r})")
    if int(plan.get("version", 0)) > PLAN_VERSION:
        raise ValueError(f"{where}: plan version {plan['version']} is newer than {PLAN_VERSION}")
    for i, region in enumerate(plan.get("regions", [])):
        if not region.get("instances"):
            raise ValueError(f"{where}: region {i} lists no instances")


def qualified_name(cls: type) -> str:
    """'__main__.Block', 'transformers.models.llama.modeling_llama.LlamaDecoderLayer'."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _default_region() -> Callable:
    import torch  # noqa: PLC0415 - only when a plan is applied

    compiler = getattr(torch, "compiler", None)
    region = getattr(compiler, "nested_compile_region", None)
    if region is None:
        raise RuntimeError("torch.compiler.nested_compile_region is missing: PyTorch >= 2.8 "
                           f"is needed (this is {getattr(torch, '__version__', '?')})")
    return region


@dataclass
class RegionReport:
    id: str
    how: str = ""                      # "class", "instances" or "" (nothing wrapped)
    module_class: Optional[str] = None  # the class wrapped (how == "class")
    wrapped: list = field(default_factory=list)   # instance paths now inside the region
    missing: list = field(default_factory=list)   # planned paths the model does not have
    note: str = ""


@dataclass
class NestedReport:
    regions: list = field(default_factory=list)
    _undo: list = field(default_factory=list, repr=False)

    def undo(self) -> None:
        """Restores every forward this application replaced (last first)."""
        while self._undo:
            owner, had_own, original = self._undo.pop()
            if had_own:
                owner.forward = original
            else:
                try:
                    del owner.forward
                except AttributeError:
                    pass

    def __str__(self) -> str:
        lines = []
        for r in self.regions:
            head = f"{r.id}: "
            if not r.how:
                lines.append(head + f"nothing wrapped ({r.note or 'no instance found'})")
            elif r.how == "class":
                lines.append(head + f"class {r.module_class} wrapped; "
                             f"{len(r.wrapped)} instance(s) share the region")
            else:
                lines.append(head + f"{len(r.wrapped)} instance(s) wrapped one by one")
            if r.missing:
                lines.append(f"  not in the model: {', '.join(r.missing)}")
            if r.note and r.how:
                lines.append(f"  {r.note}")
        return "\n".join(lines)


def _replace_forward(owner: Any, region: Callable, report: NestedReport) -> None:
    had_own = "forward" in vars(owner)
    original = vars(owner)["forward"] if had_own else None
    wrapped = region(owner.forward)  # a class's function, or an instance's bound method
    try:
        setattr(wrapped, _WRAPPED, True)
    except (AttributeError, TypeError):
        pass
    owner.forward = wrapped
    report._undo.append((owner, had_own, original))


def _is_wrapped(fn: Any) -> bool:
    return bool(getattr(fn, _WRAPPED, False))


def _apply_region(model: Any, entry: dict, region: Callable, report: NestedReport) -> None:
    rep = RegionReport(id=str(entry.get("id", len(report.regions))))
    report.regions.append(rep)
    found = []
    for path in entry["instances"]:
        try:
            found.append((path, model.get_submodule(path)))
        except AttributeError:
            rep.missing.append(path)
    if not found:
        rep.note = "no planned instance is in the model"
        return
    classes = {type(m) for _, m in found}
    wanted = entry.get("module_class")
    if len(classes) == 1:
        cls = next(iter(classes))
        if wanted and qualified_name(cls) != wanted:
            rep.note = (f"the plan names class {wanted}, the instances are "
                        f"{qualified_name(cls)}: wrapped by instance")
        elif _is_wrapped(cls.forward):
            rep.how, rep.module_class = "class", qualified_name(cls)
            rep.wrapped = [p for p, _ in found]
            rep.note = "its forward was already a nested region"
            return
        else:
            _replace_forward(cls, region, report)
            rep.how, rep.module_class = "class", qualified_name(cls)
            rep.wrapped = [p for p, _ in found]
            return
    for path, m in found:  # differing classes, or a class the plan does not name
        if not _is_wrapped(m.forward):
            _replace_forward(m, region, report)
        rep.wrapped.append(path)
    rep.how = "instances"


def apply_nested_plan(model: Any, plan: Union[str, dict], *,
                      region: Optional[Callable] = None) -> NestedReport:
    """Wraps the planned modules' forward in nested_compile_region; returns what was done.

    plan: a path or a loaded plan. region: the decorator to use (default
    torch.compiler.nested_compile_region; tests pass their own).
    """
    if isinstance(plan, str):
        plan = load_plan(plan)
    else:
        check_plan(plan)
    region = region or _default_region()
    report = NestedReport()
    for entry in plan.get("regions", []):
        _apply_region(model, entry, region, report)
    return report
