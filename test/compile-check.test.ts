// fl.compileCheck: a source compiled for a GPU this machine does not have, by
// the run-time compiler that GPU's backend uses (hiprtc for AMD, NVRTC for
// NVIDIA), through the same translation as fl.compile. Where the compiler is
// missing, its cases are pending; CI installs hiprtc (FUSELAB_REQUIRE_HIPRTC=1
// makes its absence a failure), and the GPU machine has NVRTC.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as fl from "../src";
import { expectThrows } from "./helpers";

const CORPUS = path.resolve(__dirname, "..", "..", "test", "corpus");
const corpus = (file: string) => fs.readFileSync(path.join(CORPUS, file), "utf8");

/** Whether `backend`'s run-time compiler can be loaded here (its library is built; no device needed). */
function compilerOf(backend: "hip" | "cuda"): boolean {
  const status = fl.backends().find((b) => b.name === backend);
  return !!status && status.built && status.notes.some((n) => /^run-time compilation: (hiprtc|NVRTC) /.test(n));
}

// The corpus kernels, and the template instances its tests launch. On AMD, the
// sources that include CUDA's own headers (cuda_fp16.h, cooperative_groups.h,
// cub) are NVIDIA's: they are refused with the HIP header to use instead.
const CORPUS_CASES: { file: string; instances?: string[]; nvidiaInstances?: string[]; nvidiaOnly?: boolean }[] = [
  { file: "activations_macro.cu" },
  { file: "bf16_gelu_mul.cu", nvidiaOnly: true },
  { file: "cg_thread_group.cu", nvidiaOnly: true },
  { file: "cg_coalesced.cu", nvidiaOnly: true },
  { file: "cub_block_sort.cu", nvidiaOnly: true },
  { file: "cub_compact.cu", instances: ["compact_positive<128>"], nvidiaOnly: true },
  { file: "cub_segments.cu", nvidiaOnly: true },
  { file: "cub_tiled_scan.cu", instances: ["scan_tiles<64, 4>"], nvidiaOnly: true },
  { file: "half2_axpy.cu", nvidiaOnly: true },
  { file: "histogram_atomics.cu" },
  { file: "layernorm_cg.cu", nvidiaOnly: true },
  { file: "matmul_struct.cu" },
  { file: "particles_helper_math.cu" },
  // hiprtc before HIP 6 finds an instance by its demangled name, which spells an unsigned
  // template argument with its suffix: so must the name expression (valid C++ on every target).
  { file: "reduce_templated.cu", instances: ["reduce_sum<256u, false>", "reduce_sum<128u,true>"] },
  { file: "rmsnorm_cub.cu", instances: ["serving::rms_norm_kernel<float, 256>", "serving::rms_norm_kernel<__half, 256>"], nvidiaOnly: true },
  { file: "softmax_rows.cu" },
  { file: "torch_ops_legacy.cu", instances: ["scale_offset_kernel<float>", "scale_offset_kernel<c10::Half>", "bin_sum_kernel<c10::Half>"] },
  { file: "transpose_tiled.cu" },
  { file: "warp_scan_partial.cu" },
  { file: "wmma_gemm.cu", nvidiaOnly: true },
  // For the same reason a type alias is spelled as the type it names (c10::BFloat16 for
  // at::BFloat16), and a kernel of an unnamed namespace, whose demangled name begins
  // "(anonymous namespace)::", cannot be found there: it is checked on NVIDIA only.
  {
    file: "torch_extension.cu",
    instances: ["ext::rms_norm_kernel<c10::Half>", "ext::rms_norm_kernel<c10::BFloat16>", "ext::axpby_kernel<c10::BFloat16>", "ext::column_sum_kernel<c10::Half>",
      "ext::column_sum_kernel<c10::BFloat16>", "ext::row_max_kernel<c10::Half>", "ext::row_max_kernel<c10::BFloat16>"],
    nvidiaInstances: ["gated_update_kernel<float>"],
  },
  { file: "torch_stable_extension.cu", instances: ["pooling::scatter_back<float>", "pooling::scatter_back<c10::Half>"], nvidiaOnly: true },
];

// HIP as AMD's own samples write it: HIP's spellings, a namespace, a template, a
// struct by value, __constant__, dynamic shared memory, warp operations with a width.
const HIP_SOURCE = `#include <hip/hip_runtime.h>
#define BLOCK 256
struct Affine { float scale; int offset; double bias; };
__constant__ float weights[16];

namespace lab {
template <typename T, int UNROLL>
__global__ void __launch_bounds__(BLOCK) scale(T* out, const T* in, Affine a, int n) {
  HIP_DYNAMIC_SHARED(T, staged)
  const int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  staged[hipThreadIdx_x] = i < n ? in[i] : T(0);
  __syncthreads();
  #pragma unroll
  for (int u = 0; u < UNROLL; u++)
    if (i < n) out[i] = staged[hipThreadIdx_x] * T(a.scale) + T(weights[(i + a.offset) & 15]) + T(a.bias);
}
template __global__ void scale<float, 2>(float*, const float*, Affine, int);
}  // namespace lab

extern "C" __global__ void lane_sums(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  for (int d = 8; d > 0; d /= 2) v += __shfl_xor(v, d, 16);
  const unsigned long long voters = __ballot(v > 0.f);
  if (i < n) out[i] = v + (float)__popcll(voters);
}
`;

const TARGETS: { target: string; backend: "hip" | "cuda" }[] = [
  { target: "hip:gfx90a", backend: "hip" },
  { target: "hip:gfx1030", backend: "hip" },
  { target: "cuda:sm_90", backend: "cuda" },
];

// The toolkit's C++ library, where this machine has one (nvcc's; NVRTC's on a GPU machine).
const TOOLKIT_CCCL = [process.env.CUDA_HOME && path.join(process.env.CUDA_HOME, "include", "cccl"), "/usr/local/cuda/include/cccl"]
  .find((folder): folder is string => !!folder && fs.existsSync(path.join(folder, "cub")));

// Stand-ins found before the toolkit's own on purpose: cub's headers without its device-wide algorithms.
const OWN_CUB = new Set(["cub/cub.cuh", "cub/util_allocator.cuh"]);

describe("fl.compileCheck", () => {
  it("hides none of the toolkit's headers that cub's block, warp and thread primitives include under NVRTC", function () {
    if (!TOOLKIT_CCCL) return this.skip();
    const stand = (name: string) => ["rtc", "rtc-nvidia"].some((folder) => fs.existsSync(path.resolve(__dirname, "..", "..", "kernels", "fuselab", folder, name)));
    // Every header reachable from cub's primitives by #include <...>, as the toolkit resolves it.
    const reached = new Set<string>(), queue: string[] = [];
    for (const part of ["block", "warp", "thread"]) {
      for (const f of fs.readdirSync(path.join(TOOLKIT_CCCL, "cub", part))) if (f.endsWith(".cuh")) queue.push(`cub/${part}/${f}`);
    }
    queue.push("cub/util_type.cuh");
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      const text = fs.readFileSync(path.join(TOOLKIT_CCCL, name), "utf8");
      for (const m of text.matchAll(/^[ \t]*#[ \t]*include[ \t]*<((?:cub|thrust|cuda|nv)\/[^>]+)>/gm)) {
        if (fs.existsSync(path.join(TOOLKIT_CCCL, m[1]))) queue.push(m[1]);
      }
    }
    expect(reached.size).to.be.greaterThan(100);
    expect([...reached].filter((name) => stand(name) && !OWN_CUB.has(name))).to.deep.equal([]);
  });

  it("refuses a target that names no GPU architecture, an instance the source has no template for, and bad options", () => {
    expectThrows(() => fl.compileCheck(HIP_SOURCE, { target: "gfx90a" }), fl.ArgumentError,
      /options\.target must be "hip:<gfx architecture>" or "cuda:sm_<NN>" \("hip:gfx90a", "cuda:sm_90"\), got "gfx90a"/);
    expectThrows(() => fl.compileCheck(HIP_SOURCE, { target: "cpu:x86" }), fl.ArgumentError, /options\.target must be/);
    expectThrows(() => fl.compileCheck(HIP_SOURCE, { target: "hip:gfx90a", instances: ["lab::scale"] }), fl.ArgumentError,
      /options\.instances\[0\] must be an instance of one of the source's template kernels \(lab::scale<\.\.\.>\), got "lab::scale"/);
    expectThrows(() => fl.compileCheck(HIP_SOURCE, { target: "hip:gfx90a", instances: ["other<int>"] }), fl.ArgumentError,
      /options\.instances\[0\] must be an instance of one of the source's template kernels/);
    expectThrows(() => fl.compileCheck(HIP_SOURCE, { target: "hip:gfx90a", instances: "lab::scale<float, 2>" as unknown as string[] }),
      fl.ArgumentError, /options\.instances must be an array of template kernels' name expressions/);
    expectThrows(() => fl.compileCheck(HIP_SOURCE, { target: "hip:gfx90a", device: fl.device("cpu") } as unknown as fl.CompileCheckOptions),
      fl.ArgumentError, /device/);
  });

  it("refuses, before any compiler runs, inline assembly for the other vendor's GPUs and CUDA's own headers on AMD", () => {
    const ptx = `__global__ void k(int* o) { int v; asm("mov.u32 %0, %%laneid;" : "=r"(v)); o[0] = v; }`;
    expectThrows(() => fl.compileCheck(ptx, { target: "hip:gfx90a" }), fl.ArgumentError, /PTX/);
    const fp16 = `#include <cuda_fp16.h>\n__global__ void k(__half* o) { o[0] = __float2half(1.f); }`;
    expectThrows(() => fl.compileCheck(fp16, { target: "hip:gfx90a" }), fl.ArgumentError,
      /#include of "cuda_fp16\.h", which is none of them, on line 1: it is CUDA's, for NVIDIA GPUs; on an AMD GPU include <hip\/hip_fp16\.h>/);
    expectThrows(() => fl.compileCheck(`#include <cub/cub.cuh>\n__global__ void k(int* o) {}`, { target: "hip:gfx1030" }), fl.ArgumentError,
      /"cub\/cub\.cuh", which is none of them, on line 1: it is part of CUDA's C\+\+ library, for NVIDIA GPUs, which hiprtc does not have/);
  });

  for (const { target, backend } of TARGETS) {
    describe(`for ${target}`, () => {
      before(function () {
        if (compilerOf(backend)) return;
        if (backend === "hip" && process.env.FUSELAB_REQUIRE_HIPRTC === "1") throw new Error("FUSELAB_REQUIRE_HIPRTC=1 but the hip backend's hiprtc is not available");
        this.skip();
      });

      for (const { file, instances: all, nvidiaInstances } of CORPUS_CASES.filter((c) => backend === "cuda" || !c.nvidiaOnly)) {
        const instances = backend === "cuda" && nvidiaInstances ? [...(all ?? []), ...nvidiaInstances] : all;
        it(`compiles the corpus's ${file}${instances ? `, with ${instances.join(" and ")}` : ""}, each kernel found by its symbol`, () => {
          const result = fl.compileCheck(corpus(file), { target, name: file.replace(/\.\w+$/, ""), instances });
          expect(result.target).to.equal(target);
          expect(result.kernels.length).to.be.greaterThan(0);
          for (const instance of instances ?? []) expect(result.kernels.map((k) => k.name)).to.include(instance.replace(/,(?=\S)/g, ", "));
          for (const k of result.kernels) expect(k.symbol, k.name).to.match(/^[A-Za-z_]\w*$/);
          expect(new Set(result.kernels.map((k) => k.symbol)).size).to.equal(result.kernels.length);
        });
      }

      it("finds cuFFT's, cuDNN's and cuSOLVER's types for kernels around a plan and host declarations beside them (a particle-in-cell code's cufftComplex*)", () => {
        const source = `#include <cufft.h>
#include <cudnn.h>
#include <cusolverDn.h>
cusolverStatus_t factor(cusolverDnHandle_t solver, cudnnHandle_t dnn);
__global__ void real_to_complex(const float* in, cufftComplex* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i].x = in[i]; out[i].y = 0.0f; }
}`;
        expect(fl.compileCheck(source, { target, name: "pic" }).kernels.map((k) => k.name)).to.deep.equal(["real_to_complex"]);
      });

      it("compiles HIP as AMD's samples write it: a kernel in a namespace, a template instance, a struct by value, __constant__, HIP_DYNAMIC_SHARED", () => {
        const result = fl.compileCheck(HIP_SOURCE, { target, name: "hip_sample", instances: ["lab::scale<float, 4>"] });
        const symbols = Object.fromEntries(result.kernels.map((k) => [k.name, k.symbol]));
        expect(Object.keys(symbols)).to.deep.equal(["lab::scale<float, 2>", "lane_sums", "lab::scale<float, 4>"]);
        // C++ names are mangled with their namespace and template arguments; extern "C" ones are not.
        expect(symbols["lab::scale<float, 2>"]).to.match(/^_ZN3lab5scaleIfLi2EEEvPT_PKS1_6Affinei$/);
        expect(symbols["lab::scale<float, 4>"]).to.match(/^_ZN3lab5scaleIfLi4EEEvPT_PKS1_6Affinei$/);
        expect(symbols.lane_sums).to.equal("lane_sums");
      });

      it("leaves out a source's host helpers and prototypes, as the host compiler takes them, and sizes a HIP array by warpSize (Rodinia, PolyBench, AMD's training and examples)", () => {
        const source = `#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <vector>
#include <filesystem>
using namespace std;
namespace fs = std::filesystem;
vector<double> host_spmv(const int m, const vector<int>& rows, const vector<double>& x);
void memcpy_field(float* dst, const float* src, int n, hipMemcpyKind kind);
void write_field(const float* data, const fs::path path);
int cols;
void init(int argc, char** argv) { if (argc == 2) cols = atoi(argv[1]); else { printf("usage\\n"); exit(0); } }
void readinput(float* v, char* file) { FILE* fp = fopen(file, "r"); fscanf(fp, "%f", v); fclose(fp); }
double rtclock() { struct timezone Tzp; struct timeval Tp; gettimeofday(&Tp, &Tzp); return Tp.tv_sec + Tp.tv_usec * 1.0e-6; }
constexpr int BLOCKSIZE = 256;
__global__ void block_sums(const double* in, double* out) {
${backend === "hip" ? "  __shared__ double warpSums[BLOCKSIZE / warpSize];" : "  __shared__ double warpSums[BLOCKSIZE / 32];"}
  if (threadIdx.x % warpSize == 0) warpSums[threadIdx.x / warpSize] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) { double s = 0; for (int i = 0; i < blockDim.x / warpSize; i++) s += warpSums[i]; *out = s; }
}`;
        expect(fl.compileCheck(source, { target }).kernels.map((k) => k.name)).to.deep.equal(["block_sums"]);
      });

      it("compiles CUDA's warp operations with lane masks, 32 or 64 bits wide, and __activemask", () => {
        const source = `__global__ void votes(unsigned long long* out, const int* in) {
  const unsigned lane = threadIdx.x % warpSize;
  const unsigned long long active = __activemask();
  const bool odd = in[threadIdx.x] & 1;
  const unsigned long long b = __ballot_sync(0xffffffffu, odd);
  const int any = __any_sync(0xffffffffffffffffull, odd), all = __all_sync(active, odd);
  int v = __shfl_sync(0xffffffffu, in[threadIdx.x], 0);
  v += __shfl_up_sync(0xffffffffu, v, 1) + __shfl_down_sync(0xffffffffu, v, 1, 16) + __shfl_xor_sync(0xffffffffu, v, 2);
  __syncwarp(0xffffffffu);
  __syncwarp();
  out[threadIdx.x] = b + any + all + v + lane;
}`;
        expect(fl.compileCheck(source, { target }).kernels.map((k) => k.name)).to.deep.equal(["votes"]);
      });

      it("gives device code std::numeric_limits and the std:: math functions, with the values the C++ library gives", () => {
        const source = `#include <limits>
#include <cmath>
#include <algorithm>
#include <cstdint>
static_assert(std::numeric_limits<int>::min() == -2147483647 - 1 && std::numeric_limits<int>::max() == 2147483647, "int");
static_assert(std::numeric_limits<unsigned>::max() == 4294967295u && !std::numeric_limits<unsigned>::is_signed, "unsigned");
static_assert(std::numeric_limits<int64_t>::max() == 9223372036854775807ll && std::numeric_limits<uint8_t>::max() == 255, "widths");
static_assert(std::numeric_limits<float>::max() == 3.40282347e38f && std::numeric_limits<float>::lowest() == -3.40282347e38f, "float");
static_assert(std::numeric_limits<float>::min() == 1.17549435e-38f && std::numeric_limits<float>::epsilon() == 1.1920929e-7f, "float small");
static_assert(std::numeric_limits<double>::epsilon() == 2.220446049250313e-16 && std::numeric_limits<float>::digits == 24, "double");
static_assert(std::numeric_limits<float>::infinity() > std::numeric_limits<float>::max(), "infinity");
__global__ void limits(float* out, int n) {
  const int i = threadIdx.x;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (i < n) out[i] = std::sqrt(float(i)) + std::exp(0.5f) + std::max(1.f, out[i]) + std::min(i, n) + (nan != nan) + std::fabs(-2.0);
}`;
        expect(fl.compileCheck(source, { target }).kernels.map((k) => k.name)).to.deep.equal(["limits"]);
      });

      it("gives std's type traits, move, forward, declval and numeric_limits with no #include, as nvcc's and hipcc's implicit headers do", () => {
        const source = `template <typename T>
__global__ void shift(T* out, int n) {
  static_assert(std::is_same<T, float>::value, "float");
  typename std::enable_if<std::is_floating_point<T>::value, int>::type i = threadIdx.x;
  static_assert(std::is_same<decltype(std::declval<T>() * 2), T>::value, "product");
  T v = std::move(out[i]);
  if (i < n) out[i] = std::forward<T&>(v) + std::numeric_limits<T>::lowest();
}
template __global__ void shift<float>(float*, int);`;
        expect(fl.compileCheck(source, { target }).kernels.map((k) => k.name)).to.deep.equal(["shift<float>"]);
      });

      it("reports a compile error with the compiler's log, its lines counted from the source's first line", () => {
        const source = `__global__ void broken(float* o) {\n  o[0] = 1.f;\n  o[1] = undeclared_name;\n}`;
        const error = expectThrows(() => fl.compileCheck(source, { target, name: "broken" }), fl.DeviceError,
          new RegExp(`^fl\\.compileCheck: compilation failed on ${backend} ${target.split(":")[1]}:\\n[^]*broken\\.hip\\(?:?3\\b[^]*undeclared_name`));
        expect(error.log).to.match(/undeclared_name/);
      });

      it("stops a struct the compiler lays out otherwise than fuselab would pass it, naming the struct", () => {
        const source = `#pragma pack(push, 1)\nstruct Packed { char tag; double value; };\n#pragma pack(pop)\n` +
          `__global__ void read(double* out, Packed p) { out[0] = p.value + p.tag; }`;
        expectThrows(() => fl.compileCheck(source, { target }), fl.DeviceError, /fuselab passes parameter 1 of read \(Packed\) as 16 bytes aligned to 8/);
      });
    });
  }
});
