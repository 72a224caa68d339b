// SIGINT while the main thread waits in a synchronous call (a download of a
// launch that never ends, say): Node's own SIGINT listeners run only once the
// main thread is free again, so the addon stops the running CPU launches
// itself, from a thread of its own, and then hands the signal on to Node.
#ifndef FUSELAB_ADDON_INTERRUPTS_H
#define FUSELAB_ADDON_INTERRUPTS_H

#include <memory>

#include "handles.h"

namespace fl::addon {

// Every opened device, so that an interrupt can cancel what runs on it.
void remember_device(const std::shared_ptr<DeviceState>& device);

// Installs the SIGINT handler in front of the one there now (Node's), or again
// when that one replaced it. Only where someone listens for SIGINT: otherwise
// SIGINT ends the process, as it should.
void watch_interrupts();

}  // namespace fl::addon

#endif
