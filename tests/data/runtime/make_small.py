#!/usr/bin/env python3
"""Writes tests/data/runtime/small/: a hand-made TORCH_TRACE log of one Inductor inference
graph (fc1 -> relu -> fc2, batch 8, 16 -> 32 -> 4) with kernel provenance, and a profiler
trace of two calls of it plus an optimizer kernel, a kernel without launch and a call of a
graph the log does not hold. The expected answers are in tests/unit/runtime/tst_attribution.cpp,
worked out by hand from the numbers below. Also two .fxscope projects: project.fxscope draws
regions over the log's aot_inference_graph (named by the SHA-256 of its text, as
`fxscope-cli partition --save-project` does), project_elsewhere.fxscope over a graph the log does
not hold (tests/unit/runtime/tst_region_times.cpp, tests/cli/tst_cli_attribute.cpp).
Run: python3 make_small.py (no torch needed)."""
import gzip, hashlib, json, os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small")
KEY = "ftestgraphkeyaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

PRE = '''class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[8, 16][16, 1]cuda:0", L_self_modules_fc1_parameters_weight_: "f32[32, 16][16, 1]cuda:0", L_self_modules_fc1_parameters_bias_: "f32[32][1]cuda:0", L_self_modules_fc2_parameters_weight_: "f32[4, 32][32, 1]cuda:0", L_self_modules_fc2_parameters_bias_: "f32[4][1]cuda:0"):
        l_x_ = L_x_
        l_self_modules_fc1_parameters_weight_ = L_self_modules_fc1_parameters_weight_
        l_self_modules_fc1_parameters_bias_ = L_self_modules_fc1_parameters_bias_
        l_self_modules_fc2_parameters_weight_ = L_self_modules_fc2_parameters_weight_
        l_self_modules_fc2_parameters_bias_ = L_self_modules_fc2_parameters_bias_
        linear: "f32[8, 32][32, 1]cuda:0" = torch._C._nn.linear(l_x_, l_self_modules_fc1_parameters_weight_, l_self_modules_fc1_parameters_bias_);  l_x_ = l_self_modules_fc1_parameters_weight_ = l_self_modules_fc1_parameters_bias_ = None
        relu: "f32[8, 32][32, 1]cuda:0" = torch.relu(linear);  linear = None
        linear_1: "f32[8, 4][4, 1]cuda:0" = torch._C._nn.linear(relu, l_self_modules_fc2_parameters_weight_, l_self_modules_fc2_parameters_bias_);  relu = l_self_modules_fc2_parameters_weight_ = l_self_modules_fc2_parameters_bias_ = None
        return (linear_1,)'''

POST = '''class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[32, 16][16, 1]cuda:0", arg1_1: "f32[32][1]cuda:0", arg2_1: "f32[8, 16][16, 1]cuda:0", arg3_1: "f32[4, 32][32, 1]cuda:0", arg4_1: "f32[4][1]cuda:0"):
        permute: "f32[16, 32][1, 16]cuda:0" = torch.ops.aten.permute.default(arg0_1, [1, 0]);  arg0_1 = None
        mm: "f32[8, 32][32, 1]cuda:0" = torch.ops.aten.mm.default(arg2_1, permute);  arg2_1 = permute = None
        add: "f32[8, 32][32, 1]cuda:0" = torch.ops.aten.add.Tensor(mm, arg1_1);  mm = arg1_1 = None
        relu: "f32[8, 32][32, 1]cuda:0" = torch.ops.aten.relu.default(add);  add = None
        permute_1: "f32[32, 4][1, 32]cuda:0" = torch.ops.aten.permute.default(arg3_1, [1, 0]);  arg3_1 = None
        addmm: "f32[8, 4][4, 1]cuda:0" = torch.ops.aten.addmm.default(arg4_1, relu, permute_1);  arg4_1 = relu = permute_1 = None
        return (addmm,)'''

MAPPINGS = {
    "preToPost": {"linear": ["permute", "mm", "add"], "relu": ["relu"],
                  "linear_1": ["permute_1", "addmm"]},
    "postToPre": {"permute": ["linear"], "mm": ["linear"], "add": ["linear"], "relu": ["relu"],
                  "permute_1": ["linear_1"], "addmm": ["linear_1"]},
    "cppCodeToPost": {"extern_kernels.mm:1": ["permute", "mm"],
                      "triton_poi_fused_add_relu_0:2": ["add", "relu"],
                      "extern_kernels.addmm:3": ["permute_1", "addmm"]},
    "postToCppCode": {"mm": ["extern_kernels.mm:1"], "add": ["triton_poi_fused_add_relu_0:2"],
                      "relu": ["triton_poi_fused_add_relu_0:2"], "addmm": ["extern_kernels.addmm:3"]},
    "version": 2.0,
}
STACKS = {h: ['  File "/home/user/demo/mlp.py", line 9, in forward\n    return s.fc2(s.fc1(x).relu())\n']
          for h in MAPPINGS["cppCodeToPost"]}
TRITON_INFO = {"triton_poi_fused_add_relu_0": {"autotune_cache_state": "only 1 config",
                                              "only_config": [["XBLOCK", 256]],
                                              "compile_time_us": 1234}}
MISS = {"key": KEY, "components": [], "cache_state": "miss",
        "cache_status_detailed": "full_miss", "cache_event_time": 1, "time_taken_ns": 1,
        "compile_id": "0/0"}

IDS = '"frame_id": 0, "frame_compile_id": 0, "attempt": 0'


def record(line_no, head, payload):
    md5 = hashlib.md5(payload.encode()).hexdigest()
    out = ('V1128 07:21:%02d.000000 100 torch/_inductor/compile_fx.py:%d] {%s, %s, "has_payload": "%s"}\n'
           % (line_no, 1000 + line_no, head, IDS, md5))
    return out + "".join("\t" + l + "\n" for l in payload.split("\n"))


def artifact(name, encoding):
    return '"artifact": {"name": "%s", "encoding": "%s"}' % (name, encoding)


def write_log():
    parts = [
        record(1, artifact("after_pre_grad_graph", "string"), PRE),
        record(2, '"aot_inference_graph": {}', POST),
        record(3, artifact("inductor_post_grad_graph", "string"), POST),
        record(4, artifact("triton_kernel_info", "json"), json.dumps(TRITON_INFO)),
        record(5, artifact("inductor_provenance_tracking_node_mappings", "json"), json.dumps(MAPPINGS)),
        record(6, artifact("inductor_provenance_tracking_kernel_stack_traces", "json"), json.dumps(STACKS)),
        record(7, artifact("fx_graph_cache_miss", "json"), json.dumps(MISS)),
    ]
    with open(os.path.join(OUT, "torch_trace.log"), "w") as f:
        f.write("".join(parts))


def x(cat, name, tid, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1 if cat != "kernel" else 0, "tid": tid,
         "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def graph_call(t, corr):
    """One call of KEY at CPU time t: mm (2 kernels in one aten::mm), triton, addmm."""
    k = lambda name, c, ts, dur: x("kernel", name, 7, ts, dur, correlation=c, device=0, stream=7,
                                   grid=[1, 1, 1], block=[128, 1, 1])
    return [
        x("user_annotation", "## Call CompiledFxGraph %s ##" % KEY, 10, t, 100),
        x("cpu_op", "aten::mm", 10, t + 5, 15),
        x("cuda_runtime", "cudaLaunchKernel", 10, t + 6, 2, correlation=corr),
        x("cuda_runtime", "cudaLaunchKernel", 10, t + 10, 2, correlation=corr + 1),
        x("cuda_driver", "cuLaunchKernel", 10, t + 30, 2, correlation=corr + 2),
        x("cpu_op", "aten::addmm", 10, t + 40, 20),
        x("cuda_runtime", "cudaLaunchKernel", 10, t + 45, 2, correlation=corr + 3),
        k("sm90_xmma_gemm_f32f32_a", corr, t + 1000, 4.0),
        k("splitKreduce_kernel", corr + 1, t + 1005, 1.0),
        k("triton_poi_fused_add_relu_0", corr + 2, t + 1010, 2.0),
        k("sm90_xmma_gemm_f32f32_b", corr + 3, t + 1015, 3.0),
        {"ph": "s", "id": corr, "pid": 1, "tid": 10, "ts": t + 6, "cat": "ac2g", "name": "ac2g"},
    ]


def write_profile():
    ev = graph_call(1000, 100) + graph_call(3000, 200)
    ev += [x("user_annotation", "Optimizer.step#SGD.step", 10, 5000, 50),
           x("cpu_op", "aten::_foreach_add_", 10, 5010, 20),
           x("cuda_runtime", "cudaLaunchKernel", 10, 5015, 2, correlation=300),
           x("kernel", "multi_tensor_apply_kernel", 7, 6000, 5.0, correlation=300),
           x("kernel", "orphan_kernel", 7, 6100, 0.5, correlation=999),
           x("user_annotation", "## Call CompiledFxGraph fmissinggraph ##", 10, 7000, 30),
           x("cuda_driver", "cuLaunchKernel", 10, 7005, 2, correlation=400),
           x("kernel", "triton_lost_0", 7, 8000, 7.0, correlation=400)]
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132,
                                 "totalGlobalMem": 85520809984}],
           "traceEvents": ev, "traceName": "small"}
    text = json.dumps(doc, indent=1)
    with open(os.path.join(OUT, "profile.json"), "w") as f:
        f.write(text)
    with gzip.GzipFile(os.path.join(OUT, "profile.json.gz"), "wb", mtime=0) as f:
        f.write(text.encode())
    whole = gzip.compress(text.encode(), mtime=0)
    with open(os.path.join(OUT, "cut", "profile_cut.json.gz"), "wb") as f:
        f.write(whole[: len(whole) * 2 // 3])


def project(name, source_text, regions):
    doc = {"kind": "fxscope-project",
           "regions": [{"annotation": None, "id": rid, "name": label, "nodes": nodes,
                        "options": None} for rid, label, nodes in regions],
           "schema": 1,
           "source": {"path": "torch_trace.log",
                      "sha256": hashlib.sha256(source_text.encode()).hexdigest()},
           "view_state": {}}
    with open(os.path.join(OUT, name), "w") as f:
        f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def write_projects():
    # r0 takes mm and add: the mm site (also permute's) and the Triton site (also relu's) both
    # cross its boundary. r1 takes relu, permute_1 and addmm: the Triton site crosses it.
    project("project.fxscope", POST, [("r0", "fc1", ["mm", "add"]),
                                      ("r1", "fc2", ["relu", "permute_1", "addmm"])])
    other = POST.replace("mm", "conv").replace("add", "bn")
    project("project_elsewhere.fxscope", other, [("r0", "", ["conv", "bn"]),
                                                 ("r1", "", ["relu_7", "bn_3"])])


os.makedirs(os.path.join(OUT, "cut"), exist_ok=True)
write_log()
write_profile()
write_projects()
