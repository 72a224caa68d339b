// The launch-by-name registry of ahead-of-time kernels: FL_KERNEL_EXPORT(name, fn)
// and FL_KERNEL_EXPORT_PARAMS(name, params, fn) in a kernel source add
// {name, fn, signature, params} here at load time. Host code only;
// the vendor headers include it where the compiler also compiles host code (nvcc,
// hipcc, the CPU emulator), never under NVRTC or hiprtc.
#ifndef FUSELAB_REGISTRY_H
#define FUSELAB_REGISTRY_H

#include <string>
#include <type_traits>
#include <vector>

namespace fl {

// Element type names as the TypeScript side spells dtypes.
template <typename T> struct type_name { static const char* get() { return nullptr; } };
#define FL_TYPE_NAME(T, s) template <> struct type_name<T> { static const char* get() { return s; } };
FL_TYPE_NAME(bool, "bool")
FL_TYPE_NAME(float, "f32")
FL_TYPE_NAME(double, "f64")
FL_TYPE_NAME(__half, "f16")
FL_TYPE_NAME(fl_bf16, "bf16")
#if defined(__FLT16_MAX__) && (defined(FL_TARGET_CPU) || !defined(__CUDACC__))
FL_TYPE_NAME(_Float16, "f16")  // the compiler's own 16-bit float, as HIP sources use it
#endif
FL_TYPE_NAME(signed char, "i8")
FL_TYPE_NAME(unsigned char, "u8")
FL_TYPE_NAME(char, "i8")
FL_TYPE_NAME(short, "i16")
FL_TYPE_NAME(unsigned short, "u16")
FL_TYPE_NAME(int, "i32")
FL_TYPE_NAME(unsigned int, "u32")
FL_TYPE_NAME(long, "i64")
FL_TYPE_NAME(unsigned long, "u64")
FL_TYPE_NAME(long long, "i64")
FL_TYPE_NAME(unsigned long long, "u64")
#undef FL_TYPE_NAME

// A parameter's type as the signature spells it: "f32", "const f32*", "void*";
// a struct passed by value (a vector type among them) as "struct:<size>:<alignment>",
// so that its layout as the library computed it can be checked against the
// compiler's; "?" for a type that cannot be passed.
template <typename A> std::string arg_name() {
  using D = std::remove_cv_t<A>;
  if constexpr (std::is_pointer_v<D>) {
    using P = std::remove_pointer_t<D>;
    const char* e = type_name<std::remove_cv_t<P>>::get();
    return std::string(std::is_const_v<P> ? "const " : "") + (e ? e : "void") + "*";
  } else {
    if (const char* e = type_name<D>::get()) return e;
    if constexpr (std::is_enum_v<D>) return arg_name<std::underlying_type_t<D>>();
    if constexpr (std::is_class_v<D> && std::is_trivially_copyable_v<D>)
      return "struct:" + std::to_string(sizeof(D)) + ":" + std::to_string(alignof(D));
    return "?";
  }
}

// "f32*,const f32*,i32" for void(float*, const float*, int).
template <typename... A> std::string signature_of(void (*)(A...)) {
  std::string s;
  ((s += (s.empty() ? "" : ","), s += arg_name<A>()), ...);
  return s;
}

// FL_KERNEL_EXPORT_PARAMS's parameter list checked against the kernel's type at
// compile time: one space-separated entry a parameter, and an extent ("x[n]")
// on every pointer and on nothing else. The extents' expressions are checked
// where they are read (native/addon/extents.cc).
template <typename F> struct param_shape;
template <typename... A> struct param_shape<void (*)(A...)> {
  static constexpr int count = sizeof...(A);
  static constexpr bool pointer[sizeof...(A) + 1] = {std::is_pointer_v<A>..., false};
};

template <typename F> constexpr bool params_fit(const char* params) {
  using shape = param_shape<F>;
  if (params[0] == '\0') return true;  // no names given
  int index = 0, depth = 0;
  bool in_entry = false, has_extent = false;
  for (const char* p = params;; ++p) {
    const char c = *p;
    if (c == '\0' && depth != 0) return false;
    if (depth == 0 && (c == ' ' || c == '\0')) {
      if (in_entry) {
        if (index >= shape::count || has_extent != shape::pointer[index]) return false;
        ++index;
      }
      in_entry = has_extent = false;
      if (c == '\0') return index == shape::count;
      continue;
    }
    in_entry = true;
    if (c == '[') {
      has_extent = true;
      ++depth;
    } else if (c == ']' && --depth < 0) {
      return false;
    }
  }
}

// Refuses, at compile time, a parameter list that does not fit the kernel.
#define FL_PARAMS_CHECK(name, params, ...)                                   \
  static_assert(::fl::params_fit<decltype(&__VA_ARGS__)>(params),           \
                #name ": the parameter list \"" params "\" must name every parameter, in order, "  \
                "with an extent on each pointer and on nothing else");

struct kernel_entry {
  std::string name;
  std::string signature;
  std::string params;   // "out[n] a[n] b[n] n"; empty when the export names none
  const void* fn;       // GPU: the host stub, for cudaLaunchKernel / hipLaunchKernel
  void* launcher;       // CPU: the emulator's typed trampoline (vendors/cpu.h); else null
};

// One registry per shared library (vague linkage merges the copies).
inline std::vector<kernel_entry>& registry() {
  static std::vector<kernel_entry> entries;
  return entries;
}

struct kernel_registrar {
  kernel_registrar(const char* name, std::string signature, const char* params, const void* fn, void* launcher) {
    registry().push_back({name, std::move(signature), params, fn, launcher});
  }
};

}  // namespace fl

#endif
