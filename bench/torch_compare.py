#!/usr/bin/env python3
"""PyTorch beside fuselab: the fused ops of `npm run bench`, written in PyTorch and
timed in eager mode (one kernel per op) and under torch.compile (Inductor fuses
them), on the same GPU, shapes and dtypes as bench/run.ts.

    python3 bench/torch_compare.py [--rows 32768] [--cols 4096] [--out bench/results]

Timing as fl.bench does it: CUDA events around each iteration, the L2 cache
evicted before each (a write over twice its size, outside the timed span),
10 warm-up iterations, the median of 50. GB/s uses the fewest bytes each op must
move (every input read once, every output written once): the same traffic model
as fuselab's fused ops, so the columns compare directly. The kernels each version
launches per call are counted with torch.profiler.

Writes bench/results/torch-<device>-<date>.json (device, date, command, versions,
and every case's samples). Needs a CUDA GPU and PyTorch; nothing in fuselab's
tests or lessons requires it: lesson 16 reads the committed file.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import sys

import torch
import torch.nn.functional as F

WARMUP = 10
ITERS = 50
SCALE = -1.75  # the examples' scale (src/ops/elementwise.ts), negative so that a sign slip shows
EPS = 1e-6


def rms_norm(h, weight):
    hf = h.float()
    return (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + EPS) * weight.float()).to(h.dtype)


def add_rms_norm(x, residual, weight):
    residual.add_(x)  # in place, as fl.fused.addRmsNorm updates its residual
    return rms_norm(residual, weight)


def silu_and_mul(x):
    return F.silu(x[..., 0, :]) * x[..., 1, :]


def gelu_and_mul(x, approximate="none"):
    return F.gelu(x[..., 0, :], approximate=approximate) * x[..., 1, :]


def cases(rows, cols, dtype, device):
    """(name, function, arguments, bytes the op must move at the least), as bench/run.ts's examples."""
    def t(*shape):
        return torch.randn(*shape, dtype=dtype, device=device)
    e = torch.finfo(dtype).bits // 8
    full, vec = rows * cols * e, cols * e
    return [
        ("addRelu", lambda a, b: torch.relu(a + b), (t(rows, cols), t(rows, cols)), 3 * full),
        ("addReluScale", lambda a, b: torch.relu(a + b) * SCALE, (t(rows, cols), t(rows, cols)), 3 * full),
        ("reluScaleBias", lambda x, b: torch.relu(x) * SCALE + b, (t(rows, cols), t(cols)), 2 * full + vec),
        ("reluScaleBias (no bias)", lambda x: torch.relu(x) * SCALE, (t(rows, cols),), 2 * full),
        ("scaleBias", lambda x, b: x * SCALE + b, (t(rows, cols), t(cols)), 2 * full + vec),
        ("biasGelu", lambda x, b: F.gelu(x + b), (t(rows, cols), t(cols)), 2 * full + vec),
        ("biasGelu (tanh)", lambda x, b: F.gelu(x + b, approximate="tanh"), (t(rows, cols), t(cols)), 2 * full + vec),
        ("siluAndMul", silu_and_mul, (t(rows, 2, cols),), 3 * full),
        ("geluAndMul", gelu_and_mul, (t(rows, 2, cols),), 3 * full),
        ("geluAndMul (tanh)", lambda x: gelu_and_mul(x, "tanh"), (t(rows, 2, cols),), 3 * full),
        ("addRmsNorm", add_rms_norm, (t(rows, cols), t(rows, cols), t(cols)), 4 * full + vec),
    ]


def time_case(fn, args, flush):
    start = [torch.cuda.Event(enable_timing=True) for _ in range(ITERS)]
    end = [torch.cuda.Event(enable_timing=True) for _ in range(ITERS)]
    for _ in range(WARMUP):
        fn(*args)
    for i in range(ITERS):
        flush.zero_()
        start[i].record()
        fn(*args)
        end[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(start, end)]


def kernels_per_call(fn, args):
    fn(*args)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    return sum(1 for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA)


def slug(text):
    text = re.sub(r"\(r\)|\(tm\)", "", text.lower())
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=32768)
    parser.add_argument("--cols", type=int, default=4096)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_compare.py: no CUDA GPU: this compares PyTorch with fuselab on the same GPU")
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    l2 = getattr(props, "L2_cache_size", 0) or 64 * 2**20
    flush = torch.empty(2 * l2, dtype=torch.uint8, device=device)
    results = []
    for dtype_name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        torch.manual_seed(1)
        for name, fn, fn_args, nbytes in cases(args.rows, args.cols, dtype, device):
            compiled = torch.compile(fn)
            row = {"op": name, "dtype": dtype_name, "shape": [args.rows, args.cols], "bytes": nbytes}
            for mode, f in (("eager", fn), ("compiled", compiled)):
                samples = time_case(f, fn_args, flush)
                median = statistics.median(samples)
                row[mode] = {"medianMs": median, "samplesMs": samples, "gbps": nbytes / median / 1e6,
                             "kernels": kernels_per_call(f, fn_args)}
            results.append(row)
            print(f"{name} {dtype_name}: eager {row['eager']['medianMs']:.4f} ms ({row['eager']['kernels']} kernels), "
                  f"compiled {row['compiled']['medianMs']:.4f} ms ({row['compiled']['kernels']} kernels)", flush=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    command = "python3 bench/torch_compare.py" + "".join(f" {a}" for a in sys.argv[1:])
    record = {
        "device": {"describe": "cuda", "backend": "cuda", "kind": "gpu",
                   "props": {"name": props.name, "multiprocessors": props.multi_processor_count, "l2Bytes": l2,
                             "totalMemory": props.total_memory}},
        "date": now.isoformat().replace("+00:00", "Z"),
        "command": command,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "timing": {"warmup": WARMUP, "iters": ITERS, "l2Flushed": True, "statistic": "median"},
        "results": results,
    }
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"torch-{slug(props.name)}-{now.date().isoformat()}.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
