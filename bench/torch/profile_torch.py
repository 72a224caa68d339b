#!/usr/bin/env python3
"""torch.compile's version of one bench case, for Nsight Compute.

Run by bench/ncu.sh under `ncu --profile-from-start off`:

    python3 bench/torch/profile_torch.py CASE.json

CASE.json is what `node dist/bench/profile.js case` wrote; its "spec" is
bench_torch.py's format with one case. The compiled function runs its warm-up
calls (which compile it), then once between cudaProfilerStart and
cudaProfilerStop, so ncu profiles exactly the kernels of one call.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_torch import DTYPES, OPS, make_args  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: profile_torch.py CASE.json")
    with open(sys.argv[1]) as f:
        spec = json.load(f)["spec"]
    case = spec["cases"][0]
    op = OPS.get(case["op"])
    if op is None:
        sys.exit(f"profile_torch.py: no PyTorch version of {case['op']} in bench_torch.py")
    device = torch.device("cuda")
    torch.manual_seed(1)
    args = make_args(case["args"], DTYPES[case["dtype"]], device)
    compiled = torch.compile(op)
    for _ in range(spec["warmup"]):
        compiled(*args)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    compiled(*args)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print(f"torch.compile {case['id']}: one call profiled", flush=True)


if __name__ == "__main__":
    main()
