// <cuda_gl_interop.h> in a kernel source: the runtime's sharing of OpenGL buffers
// (cudaGraphicsGLRegisterBuffer ...), which samples' host code uses to draw results
// (nbody, fluidsGL, particles). A source here is device code (launches come from
// TypeScript), so the header declares nothing; a host call left in the source is
// reported as undeclared.
#ifndef FUSELAB_RTC_CUDA_GL_INTEROP_H
#define FUSELAB_RTC_CUDA_GL_INTEROP_H
#endif
