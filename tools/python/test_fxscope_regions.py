"""Unit test of fxscope_regions' matching (no GPU, no Inductor): marks by name, falls back to
the source line when a name is missing, reports what did not match, clears foreign marks.
Runs with any torch that has torch.fx:  python3 test_fxscope_regions.py
"""

import json
import os
import sys
import tempfile
import unittest

import torch
import torch.fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fxscope_regions as fr  # noqa: E402


def f(x, y):
    a = torch.sin(x)
    b = a * y
    c = b + 1
    return torch.cos(c)


def traced():
    gm = torch.fx.symbolic_trace(f)
    lines = {"sin": 2, "mul": 3, "add": 4, "cos": 5}
    for n in gm.graph.nodes:
        if n.name in lines:
            n.meta["stack_trace"] = f'  File "/work/demo.py", line {lines[n.name]}, in f\n    ...\n'
    return gm


def plan(entries, value=0):
    return {"format": fr.PLAN_FORMAT, "version": 1,
            "regions": [{"id": "r0", "value": value, "nodes": entries}]}


def entry(name, target, line):
    return {"name": name, "target": target, "file": "/home/user/demo.py", "line": line}


class MarkGraphTest(unittest.TestCase):
    def test_marks_by_name(self):
        gm = traced()
        rep = fr.GraphReport(index=0, nodes=len(gm.graph.nodes))
        p = plan([entry("mul", "operator.mul", 3), entry("add", "operator.add", 4)])
        self.assertEqual(fr.match_score(gm, p), 1.0)
        fr.mark_graph(gm, p, rep)
        marked = {n.name for n in gm.graph.nodes if n.meta.get("custom", {}).get(fr.KEY) == 0}
        self.assertEqual(marked, {"mul", "add"})
        self.assertEqual(rep.marked, {"r0": 2})
        self.assertEqual(rep.by_line, [])

    def test_falls_back_to_source_line(self):
        gm = traced()
        rep = fr.GraphReport(index=0, nodes=len(gm.graph.nodes))
        # 'mul_7' is not in the graph and 'add' names an add, not a sin: both go by line.
        p = plan([entry("mul_7", "operator.mul", 3), entry("add", "torch.sin", 2),
                  entry("gone", "operator.truediv", 9)], value={"inductor_configs": {}})
        self.assertAlmostEqual(fr.match_score(gm, p), 0.0)
        fr.mark_graph(gm, p, rep)
        self.assertEqual(rep.by_line, [("mul_7", "mul"), ("add", "sin")])
        self.assertEqual(rep.unmatched, ["gone"])
        by_name = {n.name: n for n in gm.graph.nodes}
        self.assertEqual(by_name["sin"].meta["custom"][fr.KEY], {"inductor_configs": {}})
        self.assertNotIn("custom", by_name["add"].meta)

    def test_clears_marks_the_plan_lacks(self):
        gm = traced()
        for n in gm.graph.nodes:
            if n.name == "cos":
                n.meta["custom"] = {fr.KEY: 1, "other": 2}
        rep = fr.GraphReport(index=0, nodes=len(gm.graph.nodes))
        fr.mark_graph(gm, plan([entry("mul", "operator.mul", 3)]), rep)
        cos = next(n for n in gm.graph.nodes if n.name == "cos")
        self.assertEqual(cos.meta["custom"], {"other": 2})
        self.assertEqual(rep.cleared, ["cos"])

    def test_load_plan_checks_format(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as fh:
                json.dump({"format": "something-else"}, fh)
            with self.assertRaises(ValueError):
                fr.load_plan(bad)
            good = os.path.join(d, "good.json")
            with open(good, "w") as fh:
                json.dump(plan([]), fh)
            self.assertEqual(fr.load_plan(good)["_path"], good)


if __name__ == "__main__":
    unittest.main()
