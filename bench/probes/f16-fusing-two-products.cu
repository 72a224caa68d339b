// Which product ptxas fuses when an add has two: shapes beyond a*b + c*d.
// Run on a GPU: nvcc -arch=sm_90 -o two-products bench/probes/f16-fusing-two-products.cu && ./two-products (results: docs/gpu-runs.md).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define N (1 << 16)
enum { R_ABCD, R_AB_SCD, R_SCD_AB, R_AB_CDE, R_AB_M_CD, R_ORT, R_NAMED_REV, R_CD_AB, R_ORT_BF, R_COUNT };
const char* names[] = {"a*b + c*d", "a*b + s*c*d", "s*c*d + a*b", "a*b + c*d*e", "a*b - c*d", "x*cos + s*y*sin (ORT, s branch)",
  "t=c*d; u=a*b; u+t", "(c*d) + (a*b) with c,d loaded last", "bf16 ORT"};
__global__ void k(const __half* v, const __nv_bfloat16* w, unsigned short* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const __half* p = v + 6 * i;
  __half a = p[0], b = p[1], c = p[2], d = p[3], e = p[4];
  __half s = 0;
  if (i % 3 == 0) s = -1; else s = 1;
  unsigned short* o = out + R_COUNT * i;
  o[R_ABCD] = __half_as_ushort(a * b + c * d);
  o[R_AB_SCD] = __half_as_ushort(a * b + s * c * d);
  o[R_SCD_AB] = __half_as_ushort(s * c * d + a * b);
  o[R_AB_CDE] = __half_as_ushort(a * b + c * d * e);
  o[R_AB_M_CD] = __half_as_ushort(a * b - c * d);
  o[R_ORT] = __half_as_ushort(a * b + s * c * d);
  { __half t = c * d; __half u = a * b; o[R_NAMED_REV] = __half_as_ushort(u + t); }
  o[R_CD_AB] = __half_as_ushort(c * d + a * b);
  const __nv_bfloat16* q = w + 6 * i;
  __nv_bfloat16 sb = 0;
  if (i % 3 == 0) sb = -1; else sb = 1;
  o[R_ORT_BF] = __bfloat16_as_ushort(q[0] * q[1] + sb * q[2] * q[3]);
}
static double H(double x) { return __half2float(__double2half(x)); }
static double B(double x) { return __bfloat162float(__double2bfloat16(x)); }
static unsigned short hb(double x) { return __half_as_ushort(__double2half(x)); }
static unsigned short bb(double x) { return __bfloat16_as_ushort(__double2bfloat16(x)); }
int main() {
  std::vector<__half> v(6 * N); std::vector<__nv_bfloat16> w(6 * N);
  srand(11);
  for (int i = 0; i < 6 * N; ++i) { double m = 0.5 + rand() / (double)RAND_MAX * 3.5; if (rand() & 1) m = -m; v[i] = __double2half(m); w[i] = __double2bfloat16(m); }
  __half* dv; __nv_bfloat16* dw; unsigned short* dout;
  cudaMalloc(&dv, 12 * N); cudaMalloc(&dw, 12 * N); cudaMalloc(&dout, 2 * R_COUNT * N);
  cudaMemcpy(dv, v.data(), 12 * N, cudaMemcpyHostToDevice); cudaMemcpy(dw, w.data(), 12 * N, cudaMemcpyHostToDevice);
  k<<<N / 256, 256>>>(dv, dw, dout);
  std::vector<unsigned short> out(R_COUNT * N);
  cudaMemcpy(out.data(), dout, 2 * R_COUNT * N, cudaMemcpyDeviceToHost);
  long miss[R_COUNT][3] = {};
  for (int i = 0; i < N; ++i) {
    double a = __half2float(v[6*i]), b = __half2float(v[6*i+1]), c = __half2float(v[6*i+2]), d = __half2float(v[6*i+3]), e = __half2float(v[6*i+4]);
    double s = i % 3 == 0 ? -1 : 1;
    unsigned short m[R_COUNT][3];
    auto three = [&](int r, double unf, double l, double rr) { m[r][0] = hb(unf); m[r][1] = hb(l); m[r][2] = hb(rr); };
    three(R_ABCD, H(a*b) + H(c*d), a*b + H(c*d), H(a*b) + c*d);
    three(R_AB_SCD, H(a*b) + H(s*c*d), a*b + H(s*c*d), H(a*b) + s*c*d);
    three(R_SCD_AB, H(s*c*d) + H(a*b), s*c*d + H(a*b), H(s*c*d) + a*b);
    three(R_AB_CDE, H(a*b) + H(H(c*d)*e), a*b + H(H(c*d)*e), H(a*b) + H(c*d)*e);
    three(R_AB_M_CD, H(a*b) - H(c*d), a*b - H(c*d), H(a*b) - c*d);
    three(R_ORT, H(a*b) + H(s*c*d), a*b + H(s*c*d), H(a*b) + s*c*d);
    three(R_NAMED_REV, H(a*b) + H(c*d), a*b + H(c*d), H(a*b) + c*d);
    three(R_CD_AB, H(c*d) + H(a*b), c*d + H(a*b), H(c*d) + a*b);
    double qa = __bfloat162float(w[6*i]), qb = __bfloat162float(w[6*i+1]), qc = __bfloat162float(w[6*i+2]), qd = __bfloat162float(w[6*i+3]);
    m[R_ORT_BF][0] = bb(B(qa*qb) + B(s*qc*qd)); m[R_ORT_BF][1] = bb(qa*qb + B(s*qc*qd)); m[R_ORT_BF][2] = bb(B(qa*qb) + s*qc*qd);
    for (int r = 0; r < R_COUNT; ++r) for (int q = 0; q < 3; ++q) if (m[r][q] != out[R_COUNT*i + r]) ++miss[r][q];
  }
  for (int r = 0; r < R_COUNT; ++r) printf("%-36s unfused=%ld left=%ld right=%ld\n", names[r], miss[r][0], miss[r][1], miss[r][2]);
}
