# Records two architectures whose repeated layers are not textually identical node for node, for
# the structure recogniser: (1) transformers' BertModel, 6 layers, training (the AOT forward carries
# the attention-mask prologue before layer 0), and (2) torchvision's VisionTransformer, 6 encoder
# layers, training. Each is compiled by Inductor with kernel provenance, one warm-up step, then
# 3 profiled steps. Random weights. TORCH_TRACE is set by the caller, one folder per model:
#   TORCH_TRACE=/tmp/tt_bert rec_bert_vit.py bert OUTDIR
#   TORCH_TRACE=/tmp/tt_vit  rec_bert_vit.py vit OUTDIR
# Run through the device tool from a neutral directory (/home/user/demo).
import os
import sys

import torch
import torch._inductor.config as ic

ic.trace.provenance_tracking_level = 1
ic.triton.unique_kernel_names = True


def bert():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(hidden_size=256, num_hidden_layers=6, num_attention_heads=4,
                     intermediate_size=1024, vocab_size=8192, max_position_embeddings=256)
    m = BertModel(cfg).cuda().train()
    ids = torch.randint(0, 8192, (8, 128), device="cuda")
    mask = torch.ones(8, 128, dtype=torch.long, device="cuda")
    mask[:, 100:] = 0
    return m, lambda cm: cm(input_ids=ids, attention_mask=mask).last_hidden_state.float().pow(2).mean()


def vit():
    from torchvision.models import VisionTransformer
    m = VisionTransformer(image_size=224, patch_size=16, num_layers=6, num_heads=4, hidden_dim=256,
                          mlp_dim=1024, num_classes=100).cuda().train()
    x = torch.randn(8, 3, 224, 224, device="cuda")
    y = torch.randint(0, 100, (8,), device="cuda")
    return m, lambda cm: torch.nn.functional.cross_entropy(cm(x), y)


def main():
    which, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    m, loss_of = {"bert": bert, "vit": vit}[which]()
    cm = torch.compile(m)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)

    def step():
        opt.zero_grad(set_to_none=True)
        loss_of(cm).backward()
        opt.step()

    step()
    torch.cuda.synchronize()
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
    prof.export_chrome_trace(f"{out}/{which}_train_profile.json")
    print("ok", which, torch.__version__, torch.cuda.get_device_name(0), flush=True)


if __name__ == "__main__":
    main()
