// Which __half / __nv_bfloat16 multiply-adds ptxas fuses: each pattern's GPU bits
// compared with candidate models computed exactly on the host.
// Run on a GPU: nvcc -arch=sm_90 -o f16-fusing bench/probes/f16-fusing.cu && ./f16-fusing (results: docs/gpu-runs.md).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <string>
#define N (1 << 16)
#define K 8
enum { P_AB_C, P_C_AB, P_AB_MC, P_C_MAB, P_AB_CD, P_FOUR, P_ACC, P_NAMED, P_MULTI1, P_MULTI2, P_INTR, P_INTR_RN,
       P_H2, P_H2_INTR, P_BF_AB_C, P_BF_ACC, P_BF_NAMED, P_BF_AB_CD, P_F32, P_ABC_D, P_HFMA, P_ADD_RN, P_HSUB, P_ACC_INTR,
       P_BRANCH, P_NEG, P_COUNT };
const char* names[] = {"a*b+c", "c+a*b", "a*b-c", "c-a*b", "a*b+c*d", "s+=(ab+cd+ef+gh)", "acc+=a*b (8)", "half p=a*b; p+c",
  "p=a*b; p+c", "p=a*b; p+d (2nd use)", "__hadd(__hmul(a,b),c)", "__hadd(__hmul_rn(a,b),c)", "half2 a*b+c (.x)", "__hadd2(__hmul2) (.y)",
  "bf16 a*b+c", "bf16 acc+=a*b (8)", "bf16 named p+c", "bf16 a*b+c*d", "float(a*b)+f", "a*b*c+d", "__hfma", "__hadd_rn(a*b,c)",
  "__hsub(c,__hmul(a,b))", "acc=__hadd(acc,__hmul) (8)", "p=a*b; if(c>0) p+c", "-(a*b)+c"};
__global__ void kernel(const __half* x, const __nv_bfloat16* y, const float* f, unsigned short* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const __half* v = x + i * K;
  __half a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], g = v[5], h = v[6], s = v[7];
  unsigned short* o = out + i * P_COUNT;
  auto put = [&](int p, __half r) { o[p] = __half_as_ushort(r); };
  auto putb = [&](int p, __nv_bfloat16 r) { o[p] = __bfloat16_as_ushort(r); };
  put(P_AB_C, a * b + c);
  put(P_C_AB, c + a * b);
  put(P_AB_MC, a * b - c);
  put(P_C_MAB, c - a * b);
  put(P_AB_CD, a * b + c * d);
  { __half t = s; t += (a * b + c * d + e * g + h * s); put(P_FOUR, t); }
  { __half acc = s; for (int k = 0; k < K; ++k) acc += x[((i + k) % N) * K] * x[((i + k) % N) * K + 1]; put(P_ACC, acc); }
  { __half p = a * b; __half r = p + c; put(P_NAMED, r); }
  { __half p = a * b; put(P_MULTI1, p + c); put(P_MULTI2, p + d); }
  put(P_INTR, __hadd(__hmul(a, b), c));
  put(P_INTR_RN, __hadd(__hmul_rn(a, b), c));
  { __half2 a2 = __halves2half2(a, d), b2 = __halves2half2(b, e), c2 = __halves2half2(c, g);
    __half2 r = a2 * b2 + c2; put(P_H2, __low2half(r));
    __half2 q = __hadd2(__hmul2(a2, b2), c2); put(P_H2_INTR, __high2half(q)); }
  const __nv_bfloat16* w = y + i * K;
  __nv_bfloat16 ba = w[0], bb = w[1], bc = w[2], bd = w[3];
  putb(P_BF_AB_C, ba * bb + bc);
  { __nv_bfloat16 acc = w[7]; for (int k = 0; k < K; ++k) acc += y[((i + k) % N) * K] * y[((i + k) % N) * K + 1]; putb(P_BF_ACC, acc); }
  { __nv_bfloat16 p = ba * bb; __nv_bfloat16 r = p + bc; putb(P_BF_NAMED, r); }
  putb(P_BF_AB_CD, ba * bb + bc * bd);
  { float r = __half2float(a * b) + f[i]; o[P_F32] = __half_as_ushort(__float2half_rn(r)); }
  put(P_ABC_D, a * b * c + d);
  put(P_HFMA, __hfma(a, b, c));
  put(P_ADD_RN, __hadd_rn(a * b, c));
  put(P_HSUB, __hsub(c, __hmul(a, b)));
  { __half acc = s; for (int k = 0; k < K; ++k) acc = __hadd(acc, __hmul(x[((i + k) % N) * K], x[((i + k) % N) * K + 1])); put(P_ACC_INTR, acc); }
  { __half p = a * b; __half r = p; if (__half2float(c) > 0.f) r = p + c; put(P_BRANCH, r); }
  put(P_NEG, -(a * b) + c);
}
// Host models: values as doubles, rounded to f16 / bf16 exactly.
static double H(double v) { return (double)__half2float(__double2half(v)); }
static double B(double v) { return (double)__bfloat162float(__double2bfloat16(v)); }
static double hv(__half h) { return (double)__half2float(h); }
static double bv(__nv_bfloat16 h) { return (double)__bfloat162float(h); }
static unsigned short hb(double v) { return __half_as_ushort(__double2half(v)); }
static unsigned short bb16(double v) { return __bfloat16_as_ushort(__double2bfloat16(v)); }
int main() {
  std::vector<__half> x(N * K); std::vector<__nv_bfloat16> y(N * K); std::vector<float> f(N);
  srand(7);
  for (int i = 0; i < N * K; ++i) {
    double m = 0.5 + (rand() / (double)RAND_MAX) * 3.5; if (rand() & 1) m = -m;
    x[i] = __double2half(m); y[i] = __double2bfloat16(m * 1.0001);
  }
  for (int i = 0; i < N; ++i) f[i] = (rand() / (double)RAND_MAX) * 8 - 4;
  __half* dx; __nv_bfloat16* dy; float* df; unsigned short* dout;
  cudaMalloc(&dx, N * K * 2); cudaMalloc(&dy, N * K * 2); cudaMalloc(&df, N * 4); cudaMalloc(&dout, N * P_COUNT * 2);
  cudaMemcpy(dx, x.data(), N * K * 2, cudaMemcpyHostToDevice); cudaMemcpy(dy, y.data(), N * K * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(df, f.data(), N * 4, cudaMemcpyHostToDevice);
  kernel<<<N / 256, 256>>>(dx, dy, df, dout);
  std::vector<unsigned short> out(N * P_COUNT);
  if (cudaMemcpy(out.data(), dout, N * P_COUNT * 2, cudaMemcpyDeviceToHost) != cudaSuccess) { printf("cuda error\n"); return 1; }
  // models[p] = list of (name, bits) per element
  const int M = 4; const char* mnames[M] = {"unfused", "fused", "fusedL", "fusedR"};
  long miss[P_COUNT][M] = {}; bool defined[P_COUNT][M] = {};
  for (int i = 0; i < N; ++i) {
    const __half* v = &x[i * K]; double a = hv(v[0]), b = hv(v[1]), c = hv(v[2]), d = hv(v[3]), e = hv(v[4]), g = hv(v[5]), h = hv(v[6]), s = hv(v[7]);
    const __nv_bfloat16* w = &y[i * K]; double ba = bv(w[0]), bbv = bv(w[1]), bc = bv(w[2]), bd = bv(w[3]), bs = bv(w[7]);
    unsigned short m[P_COUNT][M]; for (auto& r : m) for (auto& q : r) q = 0xffff;
    auto two = [&](int p, double u, double fz) { m[p][0] = hb(u); m[p][1] = hb(fz); };
    two(P_AB_C, H(a * b) + c, a * b + c); two(P_C_AB, c + H(a * b), c + a * b);
    two(P_AB_MC, H(a * b) - c, a * b - c); two(P_C_MAB, c - H(a * b), c - a * b);
    m[P_AB_CD][0] = hb(H(a * b) + H(c * d)); m[P_AB_CD][2] = hb(a * b + H(c * d)); m[P_AB_CD][3] = hb(H(a * b) + c * d);
    { double u = H(H(H(H(a * b) + H(c * d)) + H(e * g)) + H(h * s)); m[P_FOUR][0] = hb(s + u);
      double l = H(H(H(a * b + H(c * d)) + e * g) + h * s); m[P_FOUR][2] = hb(s + l);
      double r = H(H(H(H(a * b) + c * d) + e * g) + h * s); m[P_FOUR][3] = hb(s + r); }
    { double au = s, af = s; for (int k = 0; k < K; ++k) { int j = ((i + k) % N) * K; double p = hv(x[j]) * hv(x[j + 1]); au = H(au + H(p)); af = H(af + p); }
      m[P_ACC][0] = hb(au); m[P_ACC][1] = hb(af); m[P_ACC_INTR][0] = hb(au); m[P_ACC_INTR][1] = hb(af); }
    two(P_NAMED, H(a * b) + c, a * b + c); two(P_MULTI1, H(a * b) + c, a * b + c); two(P_MULTI2, H(a * b) + d, a * b + d);
    two(P_INTR, H(a * b) + c, a * b + c); two(P_INTR_RN, H(a * b) + c, a * b + c);
    two(P_H2, H(a * b) + c, a * b + c); two(P_H2_INTR, H(d * e) + g, d * e + g);
    m[P_BF_AB_C][0] = bb16(B(ba * bbv) + bc); m[P_BF_AB_C][1] = bb16(ba * bbv + bc);
    { double au = bs, af = bs; for (int k = 0; k < K; ++k) { int j = ((i + k) % N) * K; double p = bv(y[j]) * bv(y[j + 1]); au = B(au + B(p)); af = B(af + p); }
      m[P_BF_ACC][0] = bb16(au); m[P_BF_ACC][1] = bb16(af); }
    m[P_BF_NAMED][0] = bb16(B(ba * bbv) + bc); m[P_BF_NAMED][1] = bb16(ba * bbv + bc);
    m[P_BF_AB_CD][0] = bb16(B(ba * bbv) + B(bc * bd)); m[P_BF_AB_CD][2] = bb16(ba * bbv + B(bc * bd)); m[P_BF_AB_CD][3] = bb16(B(ba * bbv) + bc * bd);
    m[P_F32][0] = hb((float)(H(a * b) + f[i])); m[P_F32][1] = hb((float)(a * b + f[i]));
    two(P_ABC_D, H(H(a * b) * c) + d, H(a * b) * c + d);
    two(P_HFMA, H(a * b) + c, a * b + c); two(P_ADD_RN, H(a * b) + c, a * b + c); two(P_HSUB, c - H(a * b), c - a * b);
    { double p = H(a * b); m[P_BRANCH][0] = c > 0 ? hb(p + c) : hb(p); m[P_BRANCH][1] = c > 0 ? hb(a * b + c) : hb(p); }
    two(P_NEG, -H(a * b) + c, -(a * b) + c);
    for (int p = 0; p < P_COUNT; ++p) for (int q = 0; q < M; ++q) if (m[p][q] != 0xffff) { defined[p][q] = true; if (m[p][q] != out[i * P_COUNT + p]) ++miss[p][q]; }
  }
  for (int p = 0; p < P_COUNT; ++p) {
    printf("%-30s", names[p]);
    for (int q = 0; q < M; ++q) if (defined[p][q]) printf(" %s=%ld", mnames[q], miss[p][q]);
    printf("\n");
  }
}
