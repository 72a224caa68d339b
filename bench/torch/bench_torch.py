#!/usr/bin/env python3
"""PyTorch eager and torch.compile on the cases fuselab's bench timed.

Run by `npm run bench -- --vs torch` (bench/run.ts), which writes the cases it
timed to SPEC and reads OUT back:

    python3 bench/torch/bench_torch.py SPEC.json OUT.json [BUDGET_S]

SPEC: {"warmup": int, "iters": int, "cases": [{"id", "op", "dtype", "flushL2",
"args": [...]}]}, each argument a float tensor {"$tensor": shape} (random
normal values of the case's dtype), an i32 tensor {"$tensor": shape, "values"},
a u8 tensor of Q4_0 blocks {"$tensor": shape, "dtype": "u8"} (random codes),
a number, null, or an options object.
OUT: {"torch", "cuda", "device", "results": [{"id", "eagerMs", "compileMs"}
or {"id", "error"}]}, rewritten after every case so that a run stopped part-way
keeps what it measured. With BUDGET_S, no case starts after that many seconds
(torch.compile compiles every case, some seconds each): the rest get an error
that says so.

Timed as fuselab times: CUDA events around each iteration, L2 flushed before
each one when fuselab flushed it for that case (a write over twice its size,
outside the timed span), warm-up first (which is also when torch.compile
compiles), the median of the iterations.
"""
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def gelu_form(options):
    return (options or {}).get("approximate", "none")


# Each fused op as PyTorch code, with fuselab's arguments in fuselab's order.
# Norms compute in f32 and round once, as fuselab's kernels do.
def add_relu(a, b):
    return torch.relu(a + b)


def add_relu_scale(a, b, s):
    return torch.relu(a + b) * s


def relu_scale_bias(x, s, bias=None):
    scaled = torch.relu(x) * s
    return scaled if bias is None else scaled + bias


def scale_bias(x, s, bias):
    return x * s + bias


def bias_gelu(x, bias, options=None):
    return F.gelu(x + bias, approximate=gelu_form(options))


def silu_and_mul(x):
    return F.silu(x[..., 0, :]) * x[..., 1, :]


def gelu_and_mul(x, options=None):
    return F.gelu(x[..., 0, :], approximate=gelu_form(options)) * x[..., 1, :]


def add_rms_norm(x, residual, weight, options=None):
    residual.add_(x)
    r = residual.float()
    eps = (options or {}).get("eps", 1e-6)
    out = (r * torch.rsqrt(r.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return out, residual


def dequantize_q4_0_rms_norm(q, weight, options=None):
    """RMSNorm of the values of Q4_0 blocks (GGML's layout: an f16 scale, then 16 bytes of two 4-bit codes)."""
    blocks = q.view(*q.shape[:-1], -1, 18)
    d = blocks[..., :2].contiguous().view(torch.float16).float()
    codes = blocks[..., 2:]
    values = torch.cat([(codes & 0x0F).float() - 8, (codes >> 4).float() - 8], dim=-1) * d
    x = values.flatten(-2)
    eps = (options or {}).get("eps", 1e-6)
    return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(weight.dtype)


def softmax(x):
    return torch.softmax(x, dim=-1)


def rope_turn(x, positions, cos_sin_cache, neox):
    """x [tokens, heads, d] turned in f32 at each token's row of cos_sin_cache [max_pos, rot]; values past rot copied."""
    rot = cos_sin_cache.shape[1]
    cos_sin = cos_sin_cache[positions.long()].float().unsqueeze(1)
    cos, sin = cos_sin[..., : rot // 2], cos_sin[..., rot // 2 :]
    x = x.float()
    if neox:
        a, b = x[..., : rot // 2], x[..., rot // 2 : rot]
        turned = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
    else:
        a, b = x[..., 0:rot:2], x[..., 1:rot:2]
        turned = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
    return torch.cat([turned, x[..., rot:]], dim=-1)


def qk_norm_rope(qkv, q_weight, k_weight, positions, cos_sin_cache, options):
    """Per-head RMSNorm of the q and k heads of a packed qkv, then RoPE at each token's position, in place."""
    q_heads, kv_heads = options["qHeads"], options["kvHeads"]
    eps = options.get("eps", 1e-6)
    tokens, d = qkv.shape[0], q_weight.shape[0]
    heads = qkv.view(tokens, q_heads + 2 * kv_heads, d)
    qk = heads[:, : q_heads + kv_heads].float()
    weight = torch.cat([q_weight.expand(q_heads, d), k_weight.expand(kv_heads, d)]).float()
    qk = qk * torch.rsqrt(qk.pow(2).mean(-1, keepdim=True) + eps) * weight
    heads[:, : q_heads + kv_heads] = rope_turn(qk, positions, cos_sin_cache, options.get("neox", True)).to(qkv.dtype)
    return qkv


def cache_slots(k, positions, cache):
    """The sequence and position of each new token (positions[b] + t for token t of sequence b), and cache as [seqs, max_seq, heads, d]."""
    seqs = positions.shape[0]
    per_seq = k.shape[0] // seqs
    steps = torch.arange(per_seq, device=k.device)
    token_positions = (positions.long().unsqueeze(1) + steps).flatten()
    seq = torch.arange(seqs, device=k.device).repeat_interleave(per_seq)
    return seq, token_positions, cache.view(seqs, -1, *cache.shape[-2:])


def rope_k_append(k, positions, cos_sin_cache, k_cache, options=None):
    """k turned at each new token's position and written into its slot of k_cache."""
    seq, token_positions, cache = cache_slots(k, positions, k_cache)
    cache[seq, token_positions] = rope_turn(k, token_positions, cos_sin_cache, (options or {}).get("neox", True)).to(k.dtype)
    return k_cache


def rope_kv_append(k, v, positions, cos_sin_cache, k_cache, v_cache, options=None):
    """rope_k_append, and v written into its slots of v_cache."""
    rope_k_append(k, positions, cos_sin_cache, k_cache, options)
    seq, token_positions, cache = cache_slots(v, positions, v_cache)
    cache[seq, token_positions] = v
    return k_cache, v_cache


OPS = {
    "addRelu": add_relu,
    "addReluScale": add_relu_scale,
    "reluScaleBias": relu_scale_bias,
    "scaleBias": scale_bias,
    "biasGelu": bias_gelu,
    "siluAndMul": silu_and_mul,
    "geluAndMul": gelu_and_mul,
    "addRmsNorm": add_rms_norm,
    "softmax": softmax,
    "qkNormRope": qk_norm_rope,
    "ropeKAppend": rope_k_append,
    "ropeKvAppend": rope_kv_append,
    "dequantizeQ4_0RmsNorm": dequantize_q4_0_rms_norm,
}

# The scale of every Q4_0 block PyTorch makes: f16 0.01 (0x211F), little-endian.
Q4_0_SCALE_BYTES = (0x1F, 0x21)


def q4_0_blocks(shape, device):
    """Q4_0 blocks of random codes, each with a finite scale."""
    blocks = torch.randint(0, 256, shape, dtype=torch.uint8, device=device).view(*shape[:-1], -1, 18)
    blocks[..., 0], blocks[..., 1] = Q4_0_SCALE_BYTES
    return blocks.view(shape)


def make_args(spec_args, dtype, device):
    args = []
    for a in spec_args:
        if isinstance(a, dict) and a.get("dtype") == "u8":
            args.append(q4_0_blocks(a["$tensor"], device))
        elif isinstance(a, dict) and "values" in a:
            args.append(torch.tensor(a["values"], dtype=torch.int32, device=device).view(a["$tensor"]))
        elif isinstance(a, dict) and "$tensor" in a:
            args.append(torch.randn(a["$tensor"], dtype=dtype, device=device))
        else:
            args.append(a)
    return args


def median_ms(fn, args, warmup, iters, flush):
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for start, end in zip(starts, ends):
        if flush is not None:
            flush.fill_(1)
        start.record()
        fn(*args)
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def write_out(path, props, results):
    with open(path + ".tmp", "w") as f:
        json.dump({"torch": torch.__version__, "cuda": torch.version.cuda, "device": props.name, "results": results}, f, indent=2)
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: bench_torch.py SPEC.json OUT.json [BUDGET_S]")
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    budget_s = float(sys.argv[3]) if len(sys.argv) == 4 else float("inf")
    if not torch.cuda.is_available():
        sys.exit("bench_torch.py: torch sees no CUDA device")
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    l2_bytes = getattr(props, "L2_cache_size", 0) or 64 * 2**20
    flush_buffer = torch.empty(2 * l2_bytes, dtype=torch.uint8, device=device)
    torch.manual_seed(1)
    started = time.monotonic()
    results = []
    for case in spec["cases"]:
        op = OPS.get(case["op"])
        if op is None:
            results.append({"id": case["id"], "error": f"no PyTorch version of {case['op']} in bench_torch.py"})
            continue
        if time.monotonic() - started > budget_s:
            results.append({"id": case["id"], "error": f"not run: the time budget of {budget_s:g} s was spent"})
            continue
        try:
            args = make_args(case["args"], DTYPES[case["dtype"]], device)
            flush = flush_buffer if case["flushL2"] else None
            eager = median_ms(op, args, spec["warmup"], spec["iters"], flush)
            torch._dynamo.reset()
            compiled = torch.compile(op)
            compile_ms = median_ms(compiled, args, spec["warmup"], spec["iters"], flush)
            results.append({"id": case["id"], "eagerMs": eager, "compileMs": compile_ms})
            print(f"torch {case['id']}: eager {eager:.4f} ms, torch.compile {compile_ms:.4f} ms "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
            del args
            torch.cuda.empty_cache()
        except Exception as e:  # one case failing leaves the others' numbers
            results.append({"id": case["id"], "error": f"{type(e).__name__}: {e}"})
            print(f"torch {case['id']}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        write_out(sys.argv[2], props, results)
    write_out(sys.argv[2], props, results)


if __name__ == "__main__":
    main()
