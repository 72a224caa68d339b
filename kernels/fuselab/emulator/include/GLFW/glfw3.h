// <GLFW/glfw3.h> in a kernel source: GLFW's, which examples include for the window
// their main() shows results in (rocm-examples' sobel_filter). A source here is device
// code (launches come from TypeScript, pictures from fuselab's display), so the header
// declares nothing, on every target alike; a host function calling GLFW is left out.
#ifndef FUSELAB_EMULATOR_INCLUDE_GLFW_GLFW3_H
#define FUSELAB_EMULATOR_INCLUDE_GLFW_GLFW3_H
#endif
