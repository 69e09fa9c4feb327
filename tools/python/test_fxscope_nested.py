"""Unit test of fxscope_nested (no GPU, no torch needed): which forward is wrapped for a plan,
by class or by instance, what is reported missing, undo, and plan checks. Modules are small
stand-ins with get_submodule; the region decorator is a recording stand-in for
torch.compiler.nested_compile_region (absent from the Debian torch 1.13, and no torch is needed
to decide what to wrap). Runs with any Python 3:  python3 test_fxscope_nested.py
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fxscope_nested as fn  # noqa: E402


class Module:
    """What apply_nested_plan uses of torch.nn.Module: attributes and get_submodule."""

    def __call__(self, *args):
        return self.forward(*args)

    def get_submodule(self, path):
        m = self
        for part in path.split("."):
            if not part:
                continue
            if not hasattr(m, part):
                raise AttributeError(f"{type(m).__name__} has no attribute `{part}`")
            m = getattr(m, part)
        return m


class Block(Module):
    def __init__(self, k):
        self.k = k

    def forward(self, x):
        return x * self.k + 1


class OtherBlock(Block):
    def forward(self, x):
        return x - self.k


class Seq(Module):
    def __init__(self, items):
        for i, m in enumerate(items):
            setattr(self, str(i), m)
        self.n = len(items)

    def forward(self, x):
        for i in range(self.n):
            x = getattr(self, str(i))(x)
        return x


class Net(Module):
    def __init__(self, blocks):
        self.blocks = Seq(blocks)

    def forward(self, x):
        return self.blocks(x)


class Recorder:
    """Stands in for nested_compile_region: wraps, counts wrappings and calls."""

    def __init__(self):
        self.wrapped = []
        self.calls = 0

    def __call__(self, f):
        self.wrapped.append(f)

        def region(*args):
            self.calls += 1
            return f(*args)
        return region


def plan(instances, module_class=None):
    region = {"id": "n0", "instances": instances, "nodes_each": 12}
    if module_class is not None:
        region["module_class"] = module_class
    return {"format": fn.PLAN_FORMAT, "version": 1, "regions": [region]}


class ApplyNestedPlanTest(unittest.TestCase):
    def test_wraps_the_class_once(self):
        net = Net([Block(k) for k in range(8)])
        before = net(1.0)
        rec = Recorder()
        rep = fn.apply_nested_plan(
            net, plan([f"blocks.{i}" for i in range(8)], fn.qualified_name(Block)), region=rec)
        self.assertEqual(len(rec.wrapped), 1)  # one region for all eight instances
        self.assertEqual(rep.regions[0].how, "class")
        self.assertEqual(rep.regions[0].wrapped, [f"blocks.{i}" for i in range(8)])
        self.assertEqual(net(1.0), before)     # same results through the region
        self.assertEqual(rec.calls, 8)
        rep.undo()
        self.assertNotIn("region", Block.forward.__qualname__)
        self.assertEqual(net(1.0), before)
        self.assertEqual(rec.calls, 8)

    def test_class_inferred_when_the_plan_names_none(self):
        net = Net([Block(k) for k in range(3)])
        rec = Recorder()
        rep = fn.apply_nested_plan(net, plan(["blocks.0", "blocks.1", "blocks.2"]), region=rec)
        try:
            self.assertEqual(rep.regions[0].how, "class")
            self.assertEqual(rep.regions[0].module_class, fn.qualified_name(Block))
        finally:
            rep.undo()

    def test_mixed_classes_are_wrapped_by_instance(self):
        net = Net([Block(1), OtherBlock(2), Block(3)])
        before = net(5.0)
        rec = Recorder()
        rep = fn.apply_nested_plan(net, plan(["blocks.0", "blocks.1", "blocks.2"]), region=rec)
        self.assertEqual(rep.regions[0].how, "instances")
        self.assertEqual(len(rec.wrapped), 3)
        self.assertEqual(net(5.0), before)
        self.assertIn("forward", vars(net.blocks.get_submodule("1")))
        self.assertNotIn("region", Block.forward.__qualname__)  # classes untouched
        rep.undo()
        self.assertNotIn("forward", vars(net.blocks.get_submodule("1")))

    def test_class_name_mismatch_falls_back_to_instances(self):
        net = Net([Block(1), Block(2)])
        rec = Recorder()
        rep = fn.apply_nested_plan(net, plan(["blocks.0", "blocks.1"], "other.Block"),
                                   region=rec)
        self.assertEqual(rep.regions[0].how, "instances")
        self.assertIn("the plan names class other.Block", rep.regions[0].note)
        rep.undo()

    def test_missing_instances_are_reported(self):
        net = Net([Block(1), Block(2)])
        rec = Recorder()
        rep = fn.apply_nested_plan(net, plan(["blocks.0", "blocks.7", "layers.0"]), region=rec)
        self.assertEqual(rep.regions[0].missing, ["blocks.7", "layers.0"])
        self.assertEqual(rep.regions[0].wrapped, ["blocks.0"])
        self.assertIn("not in the model: blocks.7, layers.0", str(rep))
        rep.undo()
        rep = fn.apply_nested_plan(net, plan(["nope.0"]), region=rec)
        self.assertEqual(rep.regions[0].how, "")
        self.assertIn("nothing wrapped", str(rep))

    def test_already_wrapped_class_is_not_wrapped_twice(self):
        net = Net([Block(1), Block(2)])
        rec = Recorder()
        first = fn.apply_nested_plan(net, plan(["blocks.0", "blocks.1"]), region=rec)
        second = fn.apply_nested_plan(net, plan(["blocks.0", "blocks.1"]), region=rec)
        self.assertEqual(len(rec.wrapped), 1)
        self.assertIn("already", second.regions[0].note)
        first.undo()

    def test_without_nested_compile_region_the_error_says_so(self):
        fake = type(sys)("torch")
        fake.__version__ = "1.13.1"
        saved = sys.modules.get("torch")
        sys.modules["torch"] = fake
        try:
            with self.assertRaisesRegex(RuntimeError, "PyTorch >= 2.8"):
                fn.apply_nested_plan(Net([Block(1)]), plan(["blocks.0"]))
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved

    def test_load_plan_checks_format(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as fh:
                json.dump({"format": "fxscope-region-plan", "version": 1}, fh)
            with self.assertRaisesRegex(ValueError, "not an fxscope nested-region plan"):
                fn.load_plan(bad)
            empty = os.path.join(d, "empty.json")
            with open(empty, "w") as fh:
                json.dump({"format": fn.PLAN_FORMAT, "version": 1,
                           "regions": [{"id": "n0", "instances": []}]}, fh)
            with self.assertRaisesRegex(ValueError, "lists no instances"):
                fn.load_plan(empty)
            good = os.path.join(d, "good.json")
            with open(good, "w") as fh:
                json.dump(plan(["blocks.0"]), fh)
            self.assertEqual(fn.load_plan(good)["_path"], good)


if __name__ == "__main__":
    unittest.main()
