#!/bin/bash
# CTest nested_plan_python: `fxscope-cli partition --nested` on the llama24 trace, then
# tools/python/fxscope_nested.py loads the plan and applies it to a stand-in of the LLaMA model
# (model.layers.0-23 of one class, lm_head) with a recording region decorator: one class
# wrapped, 24 instances, nothing missing. Exit 77 (skipped) when python3 is missing.
# Usage: nested_plan_python.sh FXSCOPE_CLI SOURCE_ROOT
set -eu
cli=$1
root=$2
py=$(command -v python3 || true)
if [ -z "$py" ]; then
    echo "SKIP: python3 not found on PATH: the plan loader cannot be checked"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" partition "$root/tests/data/recorded/traces/llama24.log.gz" --graph 0 \
    --nested "$tmp/plan.json" --json > "$tmp/summary.json"
"$py" - "$root/tools/python" "$tmp/plan.json" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import fxscope_nested as fn
from test_fxscope_nested import Block, Module, Recorder, Seq

plan = fn.load_plan(sys.argv[2])
assert plan["format"] == "fxscope-nested-plan" and plan["version"] == 1, plan
regions = plan["regions"]
assert len(regions) == 1, regions
assert regions[0]["instances"] == [f"model.layers.{k}" for k in range(24)], regions[0]


class Llama(Module):  # LlamaForCausalLM's module paths
    def __init__(self):
        self.model = Module()
        self.model.layers = Seq([Block(k) for k in range(24)])
        self.lm_head = Module()


rec = Recorder()
report = fn.apply_nested_plan(Llama(), plan, region=rec)
r = report.regions[0]
assert r.how == "class" and r.module_class == fn.qualified_name(Block), str(report)
assert len(r.wrapped) == 24 and not r.missing, str(report)
assert len(rec.wrapped) == 1, rec.wrapped
report.undo()
print(report)
PY
