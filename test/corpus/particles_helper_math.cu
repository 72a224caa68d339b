// A particle step as the CUDA samples write one (nbody's integrate, particles'
// collide), on the vector math of the samples' <helper_math.h>: float3 and
// float4 arithmetic with scalars on either side, dot, length, normalize,
// cross, reflect, clamp, lerp, smoothstep, and int3 cells from positions.
#include <cuda_runtime.h>
#include <helper_math.h>

struct SimParams {
  float3 gravity;
  float damping;
  float bounce;   // the share of speed kept off a wall
  float radius;
  int3 grid;      // cells a side
};

__global__ void integrate(float4* pos, float4* vel, int3* cells, float* speeds, SimParams p, float dt, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 x = make_float3(pos[i]);
  float3 v = make_float3(vel[i]);
  v += p.gravity * dt;
  v *= p.damping;
  x += v * dt;
  // Walls at -1 and 1: reflect the velocity off the wall's normal, keep it inside.
  const float3 limit = make_float3(1.0f - p.radius);
  if (fabsf(x.x) > limit.x) v = reflect(v, make_float3(x.x > 0 ? -1.0f : 1.0f, 0.0f, 0.0f)) * p.bounce;
  if (fabsf(x.y) > limit.y) v = reflect(v, make_float3(0.0f, x.y > 0 ? -1.0f : 1.0f, 0.0f)) * p.bounce;
  x = clamp(x, -limit, limit);
  pos[i] = make_float4(x, pos[i].w);
  vel[i] = make_float4(v, length(v));
  const float3 unit = (x + 1.0f) / 2.0f;  // [0, 1]
  cells[i] = clamp(make_int3(floorf(unit * make_float3(p.grid))), make_int3(0), p.grid - 1);
  speeds[i] = smoothstep(0.0f, 2.0f, length(v));
}

// A frame per particle from its velocity and the world's up: two cross products, normalized.
__global__ void frames(float3* side, float3* up, const float4* vel, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float3 forward = normalize(make_float3(vel[i]));
  side[i] = normalize(cross(forward, make_float3(0.0f, 0.0f, 1.0f)));
  up[i] = cross(side[i], forward);
}

// Blends two colours per particle and wraps a phase, with integer and unsigned vectors too.
__global__ void shade(float4* colour, uint2* packed, const float* t, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 cold = make_float4(0.0f, 0.2f, 1.0f, 1.0f), hot = make_float4(1.0f, 0.3f, 0.0f, 1.0f);
  colour[i] = lerp(cold, hot, fracf(t[i]));
  const int2 a = make_int2(i, -i), b = max(a, -a) - min(a, make_int2(1));
  packed[i] = make_uint2(b) * 2u + make_uint2(static_cast<uint>(dot(a, a)) % 7u, 1u);
}
