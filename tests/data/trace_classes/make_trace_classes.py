#!/usr/bin/env python3
"""Writes the small TORCH_TRACE logs of tests/data/trace_classes/: one per class of log that
tlparse reads and fxscope misread (issue #28), hand-made in PyTorch 2.11's format (glog prefix,
JSON envelope, TAB-indented payload whose MD5 is has_payload). Run from this folder:
    python3 make_trace_classes.py
Every file is rewritten; the README lists what each one shows."""
import hashlib
import json
import os

GRAPH = """class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 16][16, 1]cuda:0"):
        l_x_ = L_x_
        sin: "f32[8, 16][16, 1]cuda:0" = torch.sin(l_x_);  l_x_ = None
        return (sin,)"""

GUARDS = """TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=0)
| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA), torch.float32, device={device}, requires_grad=False, size=[8, 16], stride=[16, 1])  # return x.sin()  # demo.py:5 in fn
| | +- ID_MATCH: ___check_obj_id(L['self'], 140{objid})"""

STRINGS = ["/home/user/demo/demo.py", "/usr/lib/python3/site-packages/torch/_dynamo/eval_frame.py"]


def line(envelope, payload=None, eol="\n"):
    env = dict(envelope)
    if payload is not None:
        env["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
    text = "V1128 09:00:00.000000 4242 torch/_logging/structured.py:28] " + json.dumps(env) + eol
    if payload is not None:
        text += "".join("\t" + p + eol for p in payload.split("\n"))
    return text


def ids(frame, compile_id, rank=None):
    out = {"frame_id": frame, "frame_compile_id": compile_id, "attempt": 0}
    if rank is not None:
        out["rank"] = rank
    return out


def strings():
    return "".join(line({"str": [s, i]}) for i, s in enumerate(STRINGS))


def metrics(frame, compile_id, name, rank=None, **extra):
    m = {"co_name": name, "co_filename": STRINGS[0], "co_firstlineno": 3,
         "compile_id": f"{frame}/{compile_id}", "entire_frame_compile_time_s": 0.5,
         "backend_compile_time_s": 0.3, "inductor_compile_time_s": 0.2, "restart_reasons": [],
         "fail_type": None, "fail_reason": None, "fail_user_frame_filename": None,
         "fail_user_frame_lineno": None}
    m.update(extra)
    return line({"compilation_metrics": m, **ids(frame, compile_id, rank)})


def start(frame, compile_id, rank=None, line_no=12):
    stack = [{"line": line_no, "name": "<module>", "filename": 0, "loc": "fn(x)"}]
    return line({"dynamo_start": {"stack": stack}, **ids(frame, compile_id, rank)})


def compile_records(frame, compile_id, rank=None, device=0, eol="\n"):
    return (start(frame, compile_id, rank)
            + line({"dynamo_output_graph": {"sizes": {}}, **ids(frame, compile_id, rank)},
                   GRAPH, eol)
            + line({"dynamo_cpp_guards_str": {}, **ids(frame, compile_id, rank)},
                   GUARDS.format(device=device, objid=4242 + (rank or 0)), eol)
            + metrics(frame, compile_id, "fn", rank))


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write(text)


def reading_classes():
    body = strings() + compile_records(0, 0)
    # A log copied through Windows: every line ends with "\r\n" (tlparse strips the '\r').
    write("crlf.log", (strings() + compile_records(0, 0)).replace("\n", "\r\n"))
    # No final newline after a complete last payload.
    write("no_final_newline.log", body.rstrip("\n") + "")
    write("no_final_newline.log", (strings() + start(0, 0) + metrics(0, 0, "fn")
                                   + line({"dynamo_output_graph": {}, **ids(0, 0)}, GRAPH))
          .rstrip("\n"))
    # The same log cut in its last payload: a real truncation.
    whole = strings() + start(0, 0) + line({"dynamo_output_graph": {}, **ids(0, 0)}, GRAPH)
    write("cut_payload.log", whole[: whole.rindex("torch.sin") + 5])
    # Blank lines without a TAB between payload lines and between records (logging stutter);
    # the MD5 is the payload's without them, as tlparse reads it.
    graph_rec = line({"dynamo_output_graph": {}, **ids(0, 0)}, GRAPH)
    lines = graph_rec.split("\n")
    stutter = "\n".join(lines[:3] + [""] + lines[3:5] + ["", ""] + lines[5:])
    write("blank_lines.log", strings() + "\n" + start(0, 0) + stutter + "\n" + metrics(0, 0, "fn"))
    # A chromium event outside any compile: args.compile_id is Python's None as text, and the
    # FX graph cache's disabled event the same (AOTInductor logs them).
    event = {"name": "fx_graph_cache_disabled", "ts": 1.0, "ph": "i", "cat": "dynamo_timed",
             "tid": 0, "pid": 0, "s": "p", "args": {"compile_id": "None", "cache_state": "disabled",
                                                     "cache_event_time": 1}}
    timed = {"name": "compile_file", "ts": 2.0, "ph": "B", "cat": "dynamo_timed", "tid": 0,
             "pid": 0, "args": {"compile_id": "None"}}
    write("compile_id_none.log", strings()
          + line({"chromium_event": {}}, json.dumps(event, indent=1))
          + line({"chromium_event": {}}, json.dumps(timed, indent=1)))


def failure_classes():
    error = """Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/torch/_dynamo/output_graph.py", line 1446, in _call_user_compiler
    compiled_fn = compiler_fn(gm, self.example_inputs())
  File "/home/user/demo/demo.py", line 9, in broken_backend
    raise RuntimeError("broken backend")
torch._dynamo.exc.BackendCompilerFailed: backend='broken_backend' raised:
RuntimeError: broken backend

Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information
"""
    write("comp_failure.log", strings() + start(0, 0, line_no=14)
          + line({"dynamo_output_graph": {}, **ids(0, 0)}, GRAPH)
          + line({"artifact": {"name": "dynamo_error", "encoding": "string"}, **ids(0, 0)}, error)
          + metrics(0, 0, "fn", fail_type="BackendCompilerFailed",
                    fail_reason="backend='broken_backend' raised:\nRuntimeError: broken backend",
                    entire_frame_compile_time_s=0.25, backend_compile_time_s=0.2,
                    inductor_compile_time_s=0.0))
    # Older PyTorch: breaks only as restart_reasons; the resumed frame names the line.
    reason = "'skip function graph_break in file torch/_dynamo/decorators.py'"
    write("restart_reasons.log", strings()
          + start(0, 0) + metrics(0, 0, "fn", restart_reasons=[reason])
          + start(1, 0) + metrics(1, 0, "torch_dynamo_resume_in_fn_at_7", co_firstlineno=7,
                                  restart_reasons=[reason])
          + start(2, 0) + metrics(2, 0, "torch_dynamo_resume_in_fn_at_9", co_firstlineno=9))
    # PyTorch 2.11: the artifact, a registry id in its link and a hint; logged twice.
    text = """Graph break in user code at /home/user/demo/demo.py:7
Graph Break Reason: Call to `torch._dynamo.graph_break()`
  Explanation: User-inserted graph break. Message: None
  Hint: Remove the `torch._dynamo.graph_break()` call.

  Developer debug context: Called `torch._dynamo.graph_break()` with args `[]`, kwargs `{}`

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0025.html
User code traceback:
  File "/home/user/demo/demo.py", line 7, in fn
    torch._dynamo.graph_break()
"""
    brk = lambda f: line({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"},
                          **ids(f, 0)}, text)
    write("graph_break_artifact.log", strings() + start(0, 0) + brk(0)
          + metrics(0, 0, "fn", restart_reasons=["graph_break"])
          + start(1, 0) + brk(1) + metrics(1, 0, "fn", restart_reasons=["graph_break"]))
    # torch.export: an evaluated guard, a data-dependent specialisation, fake kernels.
    stack = [{"line": 21, "name": "forward", "filename": 0, "loc": "return x.item() > 3"}]
    write("export_failures.log", strings()
          + line({"guard_added": {"expr": "Eq(s0, 3)", "prefix": "eval", "user_stack": stack}})
          + line({"guard_added": {"expr": "s0 >= 2", "prefix": "guard", "user_stack": stack}})
          + line({"propagate_real_tensors_provenance": {"expr": "u0 > 3", "result": "True",
                                                        "user_stack": stack}})
          + line({"missing_fake_kernel": {"op": "mylib.foo.default"}})
          + line({"mismatched_fake_kernel": {"op": "mylib.bar.default",
                                             "reason": "Shapes differ"}}))
    # Kinds fxscope lists without interpreting, a named link and a described storage.
    write("other_kinds.log", strings()
          + line({"link": {"name": "manifold_url", "url": "https://example.com/trace"}})
          + line({"describe_storage": {"id": 0, "describer_id": 0, "size": 512}})
          + line({"describe_tensor": {"id": 0, "ndim": 2, "dtype": "torch.float32",
                                      "device": "device(type='cuda', index=0)", "size": [8, 16],
                                      "stride": [16, 1], "storage": 0, "describer_id": 0},
                  **ids(0, 0)})
          + line({"describe_source": {"describer_id": 0, "id": 0, "source": "L['x']"},
                  **ids(0, 0)})
          + line({"expression_created": {"method": "eq", "result": "Eq(s0, 3)"}})
          + line({"expression_created": {"method": "ge", "result": "s0 >= 2"}})
          + line({"create_unbacked_symbol": {"symbol": "u0", "vr": "[-int_oo, int_oo]"}}))


def reset_classes():
    # torch._dynamo.reset() between two sessions: frame ids count from 0 again. PyTorch opens
    # the compile's "dynamo" chromium event just before its dynamo_start.
    def event(ph, ts, frame):
        ev = {"name": "dynamo", "ts": ts, "ph": ph, "cat": "dynamo_timed", "tid": 0, "pid": 0,
              "args": {"compile_id": f"{frame}/0"}}
        return line({"chromium_event": {}, **ids(frame, 0)}, json.dumps(ev, indent=1))

    def session(names, t0):
        out = ""
        for frame, name in enumerate(names):
            out += (event("B", t0 + frame * 1e6, frame) + start(frame, 0)
                    + event("E", t0 + frame * 1e6 + 250000, frame) + metrics(frame, 0, name))
        return out

    write("reset.log", strings() + session(["fn", "g"], 1e6) + session(["fn", "h"], 9e6))


def rank_classes():
    # Two ranks: records before init_process_group name no rank; the guards differ only in the
    # GPU index (device=0 on rank 0, device=1 on rank 1) and the object ids.
    for rank, suffix in [(0, "_k2j4"), (1, "_x9z1")]:
        write(f"ranks/dedicated_log_torch_trace_rank_{rank}{suffix}.log",
              strings() + start(0, 0) + line({"artifact": {"name": "before_init", "encoding":
                                                           "string"}}, "no rank yet")
              + compile_records(1, 0, rank=rank, device=rank))
    write("ranks/notes.txt", "not a log\n")
    write("ranks/another.log", "")
    # A file whose name and envelopes disagree about the rank.
    write("rank_conflict/dedicated_log_torch_trace_rank_1.log",
          strings() + compile_records(0, 0, rank=0))
    write("rank_conflict/dedicated_log_torch_trace_rank_0.log",
          strings() + compile_records(0, 0, rank=0))
    # Two files that claim rank 0.
    for suffix in ["_a", "_b"]:
        write(f"same_rank/dedicated_log_torch_trace_rank_0{suffix}.log",
              strings() + compile_records(0, 0, rank=0))
    # Separate processes (no rank in the names): one run each.
    for name in ["dedicated_log_torch_trace_p1.log", "dedicated_log_torch_trace_p2.log"]:
        write(f"processes/{name}", strings() + compile_records(0, 0))


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    reading_classes()
    failure_classes()
    reset_classes()
    rank_classes()
