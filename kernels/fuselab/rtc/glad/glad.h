// <glad/glad.h> in a kernel source: the OpenGL loader that examples vendor for
// the window their main() shows results in (rocm-examples' sobel_filter). A source
// here is device code (launches come from TypeScript, pictures from fuselab's
// display), so the header declares nothing, on every target alike; a host function
// calling OpenGL is left out.
#ifndef FUSELAB_RTC_GLAD_GLAD_H
#define FUSELAB_RTC_GLAD_GLAD_H
#endif
