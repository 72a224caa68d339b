// The compile cache of the cpu backend: compiled modules kept on disk, one file
// an entry, in a folder private to the user. Nothing is loaded from it that
// this cache did not write and sign, nor anything built from an included file
// that has changed since.
#ifndef FUSELAB_CPU_MODULE_CACHE_H
#define FUSELAB_CPU_MODULE_CACHE_H

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

namespace fl::cpu {

// A file the compiler read, as it was then.
struct dependency {
  std::string path;  // absolute
  std::string digest;  // SHA-256 of its content
  uint64_t device = 0, inode = 0, size = 0;
  int64_t modified_ns = 0, changed_ns = 0;
};

// Records `path` as it is now; false when it cannot be read.
bool describe_dependency(const std::string& path, dependency* out);

// "no space left on the device of <where> (...)" for ENOSPC and EDQUOT, else
// "cannot <what> <where>: <strerror>".
std::string disk_error(int error, const std::string& what, const std::string& where);

class module_cache {
 public:
  // Opens `folder`, creating it private (0700). A folder of another user, or a
  // symbolic link, is refused; one open to the group or others is made private.
  // Entries are evicted, least recently used first, to keep the folder under
  // max_bytes. nullptr and *error when the folder cannot be used.
  static std::unique_ptr<module_cache> open(const std::string& folder, uint64_t max_bytes, std::string* error);
  ~module_cache();
  module_cache(const module_cache&) = delete;
  module_cache& operator=(const module_cache&) = delete;

  const std::string& folder() const { return folder_; }

  // The module stored under `key` when its entry is whole, signed by this
  // cache and its dependencies are unchanged; an entry that fails any check is
  // removed and false returned (the caller rebuilds it).
  bool find(const std::string& key, std::string* module);
  // Stores `module` under `key` atomically (other processes see the old entry
  // or the new one, never part of one), then evicts to the size bound.
  bool store(const std::string& key, const std::vector<dependency>& dependencies, const std::string& module,
             std::string* error);

 private:
  module_cache(int folder_fd, std::string folder, std::string secret, uint64_t max_bytes);
  void evict();

  int folder_fd_;
  std::string folder_;
  std::string secret_;  // the signing key, from the folder's "secret" file
  uint64_t max_bytes_;
};

}  // namespace fl::cpu

#endif
