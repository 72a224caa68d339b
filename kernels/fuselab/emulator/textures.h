// CUDA's texture and surface objects on the CPU emulator: their types, and the
// fetch and store functions, so that a source's texture kernels compile beside its
// others (the CUDA samples' boxFilter keeps both in one file), as inline assembly
// does. The emulator has no texture unit, and TS makes no texture objects: a
// kernel taking one cannot be launched (its parameter says so), and a fetch
// reached otherwise stops the launch, naming its line.
#ifndef FUSELAB_EMULATOR_TEXTURES_H
#define FUSELAB_EMULATOR_TEXTURES_H

#include <type_traits>

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
typedef cudaTextureObject_t hipTextureObject_t;
typedef cudaSurfaceObject_t hipSurfaceObject_t;
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };

namespace fl::emu {
[[noreturn]] inline void texture_stop(const char* call, const char* file, unsigned line) {
  static thread_local char what[320];
  snprintf(what, sizeof what, "a texture or surface access (%s), which needs a GPU's texture unit (the CPU emulator has none), was reached", call);
  device_stop(what, file, line);
}
}  // namespace fl::emu

// Each fetch: the value-returning form (tex2D<float>(t, x, y)) and the one through a pointer (tex2D(&v, t, x, y)).
#define FL_TEXTURE_FETCH(name, ...)                                                                              \
  template <class T>                                                                                              \
  T name(cudaTextureObject_t, __VA_ARGS__, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) { \
    ::fl::emu::texture_stop(#name, file, line);                                                                   \
  }                                                                                                               \
  template <class T>                                                                                              \
  void name(T*, cudaTextureObject_t, __VA_ARGS__, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) { \
    ::fl::emu::texture_stop(#name, file, line);                                                                   \
  }
// The fetches texture objects and texture references share.
#define FL_TEXTURE_FETCHES(F)        \
  F(tex1Dfetch, int)                 \
  F(tex1D, float)                    \
  F(tex2D, float, float)             \
  F(tex3D, float, float, float)      \
  F(tex1DLayered, float, int)        \
  F(tex2DLayered, float, float, int)
FL_TEXTURE_FETCHES(FL_TEXTURE_FETCH)
FL_TEXTURE_FETCH(tex1DLod, float, float)
FL_TEXTURE_FETCH(tex2DLod, float, float, float)
FL_TEXTURE_FETCH(tex3DLod, float, float, float, float)
FL_TEXTURE_FETCH(texCubemap, float, float, float)
FL_TEXTURE_FETCH(tex2Dgather, float, float, int)
#undef FL_TEXTURE_FETCH

// Texture references (`texture<unsigned char, 2, cudaReadModeElementType> tex;` at
// namespace scope, bound by the host's cudaBindTexture), which CUDA 12 removed and
// older sources keep beside their plain kernels: declared, so that those kernels run;
// a fetch through one stops the launch, naming its line.
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
// <texture_types.h>'s kinds of texture, which a reference names for its dimensions
// (`texture<float, cudaTextureType2DLayered, cudaReadModeElementType>`).
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2, cudaAddressModeBorder = 3 };
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
};
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct texture : textureReference {};
namespace fl::emu {
// What a fetch gives: the element, or for a normalized read of integers a float (float4 for a vector).
template <class T, cudaTextureReadMode mode>
using texture_value = std::conditional_t<mode == cudaReadModeElementType, T, std::conditional_t<std::is_arithmetic<T>::value, float, float4>>;
}  // namespace fl::emu
#define FL_TEXTURE_REFERENCE_FETCH(name, ...)                                                                             \
  template <class T, int dim, cudaTextureReadMode mode>                                                                  \
  ::fl::emu::texture_value<T, mode> name(texture<T, dim, mode>, __VA_ARGS__, const char* file = __builtin_FILE(),        \
                                         unsigned line = __builtin_LINE()) {                                            \
    ::fl::emu::texture_stop(#name " of a texture reference (removed in CUDA 12)", file, line);                          \
  }
FL_TEXTURE_FETCHES(FL_TEXTURE_REFERENCE_FETCH)
#undef FL_TEXTURE_REFERENCE_FETCH
#undef FL_TEXTURE_FETCHES

// Surface stores and reads: by byte offset in x, as CUDA's take it.
#define FL_SURFACE_ACCESS(read, write, ...)                                                                            \
  template <class T>                                                                                                    \
  T read(cudaSurfaceObject_t, __VA_ARGS__, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap,                              \
         const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {                                       \
    ::fl::emu::texture_stop(#read, file, line);                                                                         \
  }                                                                                                                     \
  template <class T>                                                                                                    \
  void read(T*, cudaSurfaceObject_t, __VA_ARGS__, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap,                       \
            const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {                                    \
    ::fl::emu::texture_stop(#read, file, line);                                                                         \
  }                                                                                                                     \
  template <class T>                                                                                                    \
  void write(T, cudaSurfaceObject_t, __VA_ARGS__, cudaSurfaceBoundaryMode = cudaBoundaryModeTrap,                       \
             const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {                                   \
    ::fl::emu::texture_stop(#write, file, line);                                                                        \
  }
FL_SURFACE_ACCESS(surf1Dread, surf1Dwrite, int)
FL_SURFACE_ACCESS(surf2Dread, surf2Dwrite, int, int)
FL_SURFACE_ACCESS(surf3Dread, surf3Dwrite, int, int, int)
#undef FL_SURFACE_ACCESS

#endif  // FUSELAB_EMULATOR_TEXTURES_H
