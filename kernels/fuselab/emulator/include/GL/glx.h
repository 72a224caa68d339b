// <GL/glx.h> in a kernel source: OpenGL's, which samples include for the window
// their main() draws results in (CUDA by Example's gl_helper.h). A source here is
// device code (launches come from TypeScript, pictures from fuselab's display), so
// the header declares nothing, on every target alike; a host class or function
// calling OpenGL is left out, and a call left in device code is reported as undeclared.
#ifndef FUSELAB_EMULATOR_INCLUDE_GL_GLX_H
#define FUSELAB_EMULATOR_INCLUDE_GL_GLX_H
#endif
