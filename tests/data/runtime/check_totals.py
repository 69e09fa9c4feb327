#!/usr/bin/env python3
"""The independent figures tst_cli_attribute and tst_profile_trace assert, computed from the
recorded profiler traces with the json module alone (no fxscope code): the number of kernel
events and their summed duration, and, for ResNet-18, the GPU time of the kernels launched
inside the first aten::convolution of each CompiledFxGraph call (conv1). Run from this folder."""
import gzip, json

for name in ["gpt4_train/gpt4_train_profile.json.gz",
             "resnet18_infer/resnet18_infer_profile.json.gz",
             "vit_bf16_train/vit_bf16_train_profile.json.gz"]:
    ev = json.load(gzip.open(name))["traceEvents"]
    kernels = [e for e in ev if e.get("cat") == "kernel"]
    print(name, "kernels", len(kernels), "total_us", round(sum(e["dur"] for e in kernels), 3))

ev = json.load(gzip.open("resnet18_infer/resnet18_infer_profile.json.gz"))["traceEvents"]
by_corr = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "kernel"}
launches = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")
            and e.get("args", {}).get("correlation") in by_corr]
conv1 = 0.0
for a in ev:
    if a.get("cat") != "user_annotation" or "CompiledFxGraph" not in a["name"]:
        continue
    convs = sorted((o for o in ev if o.get("cat") == "cpu_op" and o["tid"] == a["tid"]
                    and a["ts"] <= o["ts"] <= a["ts"] + a["dur"]
                    and o["name"].startswith("aten::convolution")), key=lambda o: o["ts"])
    first = convs[0]
    conv1 += sum(by_corr[l["args"]["correlation"]]["dur"] for l in launches
                 if l["tid"] == a["tid"] and first["ts"] <= l["ts"] <= first["ts"] + first["dur"])
print("resnet conv1 us", round(conv1, 3))
