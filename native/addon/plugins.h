// Backend plugins: found beside the addon, dlopen()ed once per process.
#ifndef FUSELAB_ADDON_PLUGINS_H
#define FUSELAB_ADDON_PLUGINS_H

#include <fuselab/backend.h>

#include <string>
#include <vector>

namespace fl::addon {

struct Plugin {
  std::string name;                 // "cpu", "cuda", "hip"
  std::string library;              // absolute path of the shared library
  bool built = false;               // the file exists
  bool loaded = false;              // dlopen, entry point, ABI and probe() all succeeded
  std::string reason;               // why not loaded, or why no devices
  std::vector<std::string> notes;   // the plugin's notes(), one per line
  int device_count = 0;
  const fl_backend* api = nullptr;  // set when loaded
  // Its function table once the library loads, also where probe() fails: its
  // run-time compiler can check sources for a GPU this machine does not have.
  const fl_backend* table = nullptr;
};

// The last error text of `api` on the calling thread, or `fallback` when it gives none.
std::string backend_error(const fl_backend* api, const char* fallback = "failed without a reason");

// The non-empty lines of `text` (none for null).
std::vector<std::string> split_lines(const char* text);

// Every known plugin, in preference order (GPU backends first), loaded on first call.
const std::vector<Plugin>& plugins();

// The loaded plugin called `name`, or nullptr with `why` set.
const Plugin* find_plugin(const std::string& name, std::string* why);

// The plugin called `name` whose library loaded, devices or not, or nullptr with `why` set.
const Plugin* find_plugin_library(const std::string& name, std::string* why);

}  // namespace fl::addon

#endif
