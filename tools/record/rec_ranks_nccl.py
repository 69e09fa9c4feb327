# Records a real 2-GPU distributed run for rank reading and rank divergence: torchrun
# --nproc-per-node 2, NCCL, one process and one GPU per rank, a compiled step called twice and an
# all_reduce after each. Scenario `same`: both ranks see x of 8x16 (a healthy run: the only
# difference between the ranks' guards is the device index). Scenario `diverge`: rank 1 sees
# 12x16 (the ranks compile different graphs). TORCH_TRACE is set by the caller; run from a
# neutral directory (/home/user/demo) through the device tool on a 2-GPU machine:
#   TORCH_TRACE=/tmp/tt_same torchrun --nproc-per-node 2 rec_ranks_nccl.py same
import sys

import torch
import torch.distributed as dist


def main():
    scenario = sys.argv[1]
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    torch.manual_seed(0)
    w = torch.randn(16, 16, device=dev)

    @torch.compile
    def step(x, w):
        return torch.relu(x @ w).sum(-1) + 1

    rows = 12 if scenario == "diverge" and rank == 1 else 8
    for _ in range(2):
        y = step(torch.randn(rows, 16, device=dev), w)
        total = y.sum().reshape(1)
        dist.all_reduce(total)
    torch.cuda.synchronize()
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
