#include "plugins.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <mutex>
#include <utility>

namespace fl::addon {
namespace {

#ifdef __APPLE__
constexpr const char* kPluginSuffix = ".dylib";
#else
constexpr const char* kPluginSuffix = ".so";
#endif

// The folder holding this addon: plugins are looked for there and nowhere else,
// so that a stale system-wide copy is never picked up.
std::string addon_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&addon_folder), &info) == 0 || info.dli_fname == nullptr) return ".";
  std::string file = info.dli_fname;
  const size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

// The first function the addon calls that the table leaves null, or null when
// none is missing (notes and cancel are optional).
const char* missing_function(const fl_backend& api) {
  const std::pair<const char*, bool> required[] = {
      {"last_error", api.last_error != nullptr},     {"probe", api.probe != nullptr},
      {"device_count", api.device_count != nullptr}, {"open", api.open != nullptr},
      {"close", api.close != nullptr},               {"props", api.props != nullptr},
      {"alloc", api.alloc != nullptr},               {"release", api.release != nullptr},
      {"upload", api.upload != nullptr},             {"download", api.download != nullptr},
      {"copy", api.copy != nullptr},                 {"fill", api.fill != nullptr},
      {"module_builtin", api.module_builtin != nullptr}, {"module_compile", api.module_compile != nullptr},
      {"module_unload", api.module_unload != nullptr},   {"kernel_count", api.kernel_count != nullptr},
      {"kernel_info", api.kernel_info != nullptr},   {"kernel_get", api.kernel_get != nullptr},
      {"launch", api.launch != nullptr},             {"synchronize", api.synchronize != nullptr},
      {"event_create", api.event_create != nullptr}, {"event_record", api.event_record != nullptr},
      {"event_elapsed", api.event_elapsed != nullptr}, {"event_destroy", api.event_destroy != nullptr},
      {"free_string", api.free_string != nullptr},
  };
  for (const auto& [name, present] : required) {
    if (!present) return name;
  }
  return nullptr;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}


Plugin load_plugin(const std::string& folder, const std::string& name) {
  Plugin plugin;
  plugin.name = name;
  plugin.library = folder + "/libfuselab_" + name + kPluginSuffix;
  plugin.built = file_exists(plugin.library);
  if (!plugin.built) {
    plugin.reason = "not built (" + plugin.library + " not found)";
    return plugin;
  }
  // The library stays open for the life of the process: GPU runtimes register
  // exit handlers that must not outlive their code.
  void* handle = dlopen(plugin.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    plugin.reason = std::string("cannot be loaded: ") + (why ? why : "dlopen failed");
    return plugin;
  }
  auto entry = reinterpret_cast<fl_backend_entry_fn>(dlsym(handle, "fuselab_backend"));
  if (entry == nullptr) {
    plugin.reason = "cannot be loaded: no fuselab_backend() entry point in " + plugin.library;
    return plugin;
  }
  const fl_backend* api = entry();
  if (api == nullptr) {
    plugin.reason = "cannot be loaded: fuselab_backend() returned no backend";
    return plugin;
  }
  if (api->abi != FL_BACKEND_ABI) {
    plugin.reason = "cannot be loaded: it implements backend ABI " + std::to_string(api->abi) +
                    ", this addon needs ABI " + std::to_string(FL_BACKEND_ABI) + " (rebuild it)";
    return plugin;
  }
  if (const char* missing = missing_function(*api)) {
    plugin.reason = std::string("cannot be loaded: its function table has no ") + missing;
    return plugin;
  }
  plugin.table = api;
  if (api->notes) plugin.notes = split_lines(api->notes());
  if (api->probe() != 0) {
    plugin.reason = backend_error(api, "probe() failed without a reason");
    return plugin;
  }
  int count = 0;
  if (api->device_count(&count) != 0) {
    plugin.reason = backend_error(api, "device_count() failed without a reason");
    return plugin;
  }
  plugin.api = api;
  plugin.loaded = true;
  plugin.device_count = count;
  if (count == 0) plugin.reason = "no devices";
  return plugin;
}

}  // namespace

std::vector<std::string> split_lines(const char* text) {
  std::vector<std::string> lines;
  if (text == nullptr) return lines;
  std::string line;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c == '\n') {
      if (!line.empty()) lines.push_back(line);
      line.clear();
    } else {
      line += *c;
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string backend_error(const fl_backend* api, const char* fallback) {
  const char* text = api->last_error ? api->last_error() : nullptr;
  return text != nullptr && *text != '\0' ? text : fallback;
}

const std::vector<Plugin>& plugins() {
  static std::once_flag once;
  static std::vector<Plugin> all;
  std::call_once(once, [] {
    const std::string folder = addon_folder();
    for (const char* name : {"cuda", "hip", "cpu"}) all.push_back(load_plugin(folder, name));
  });
  return all;
}

namespace {

// The plugin called `name` if it is `usable`, else nullptr with `why` set.
const Plugin* find_if(const std::string& name, bool (*usable)(const Plugin&), std::string* why) {
  for (const Plugin& plugin : plugins()) {
    if (plugin.name != name) continue;
    if (usable(plugin)) return &plugin;
    *why = "backend " + name + " is not available: " + plugin.reason;
    return nullptr;
  }
  *why = "there is no backend called " + name + " (known: cuda, hip, cpu)";
  return nullptr;
}

}  // namespace

const Plugin* find_plugin(const std::string& name, std::string* why) {
  return find_if(name, [](const Plugin& p) { return p.loaded; }, why);
}

const Plugin* find_plugin_library(const std::string& name, std::string* why) {
  return find_if(name, [](const Plugin& p) { return p.table != nullptr; }, why);
}

}  // namespace fl::addon
