#include "module_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "sha256.h"

namespace fl::cpu {

namespace {

const char kEntryMagic[] = "fuselab-module 1\n";
const char kEntrySuffix[] = ".flmod";
const char kSecretName[] = "secret";
const size_t kSecretBytes = 32;
// Larger entries are not read: no module of a kernel source comes near this.
const uint64_t kMostEntryBytes = uint64_t(1) << 30;
// Leftovers of a process that died while writing or compiling are removed after this.
const int64_t kStaleSeconds = 3600;

int64_t nanoseconds(const timespec& t) { return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; }

bool read_all(int fd, std::string* out, uint64_t most) {
  out->clear();
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    out->append(buffer, static_cast<size_t>(got));
    if (out->size() > most) return false;
  }
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t wrote = write(fd, data.data() + done, data.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += static_cast<size_t>(wrote);
  }
  return true;
}

std::string random_bytes(size_t count) {
  std::string bytes(count, '\0');
  size_t done = 0;
  while (done < count) {
    ssize_t got = getrandom(&bytes[done], count - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  // getrandom only fails on kernels older than 3.17; the clock then still
  // makes temporary names unlikely to clash (they are created exclusively).
  if (done < count) {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    bytes = sha256().add(bytes).add(&now, sizeof now).add(std::to_string(getpid())).digest().substr(0, count);
  }
  return bytes;
}

std::string temporary_name(const std::string& purpose) { return ".tmp-" + purpose + "-" + to_hex(random_bytes(8)); }

// A regular file of this user that nobody else may write.
bool owned_privately(const struct stat& st) {
  return S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

std::string user_name(uid_t uid) {
  const passwd* user = getpwuid(uid);
  return user ? std::string(user->pw_name) + " (uid " + std::to_string(uid) + ")" : "uid " + std::to_string(uid);
}

// Creates each missing folder of `path`, private to this user.
void make_folders(const std::string& path) {
  std::string prefix;
  std::istringstream parts(path);
  std::string part;
  if (!path.empty() && path[0] == '/') prefix = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    prefix += (prefix.empty() || prefix.back() == '/' ? "" : "/") + part;
    mkdir(prefix.c_str(), 0700);
  }
}

// Reads the next "<word> " or "<word>\n" of an entry's header at *at.
bool next_word(const std::string& text, size_t* at, std::string* word) {
  size_t end = text.find_first_of(" \n", *at);
  if (end == std::string::npos) return false;
  *word = text.substr(*at, end - *at);
  *at = end + 1;
  return true;
}

bool next_number(const std::string& text, size_t* at, uint64_t* value) {
  std::string word;
  if (!next_word(text, at, &word) || word.empty() || word.size() > 20) return false;
  if (!std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  errno = 0;
  *value = strtoull(word.c_str(), nullptr, 10);
  return errno == 0;
}

bool next_signed(const std::string& text, size_t* at, int64_t* value) {
  bool negative = *at < text.size() && text[*at] == '-';
  if (negative) ++*at;
  uint64_t magnitude = 0;
  if (!next_number(text, at, &magnitude) || magnitude > uint64_t(INT64_MAX)) return false;
  *value = negative ? -int64_t(magnitude) : int64_t(magnitude);
  return true;
}

bool expect_text(const std::string& text, size_t* at, const std::string& expected) {
  if (text.compare(*at, expected.size(), expected) != 0) return false;
  *at += expected.size();
  return true;
}

// Whether the file at d.path is still what the compiler read: the same inode,
// size and times (a change of content always moves the change time, which no
// user can set back), or else the same content.
bool unchanged(const dependency& d) {
  struct stat st;
  if (stat(d.path.c_str(), &st) != 0) return false;
  if (st.st_dev == d.device && st.st_ino == d.inode && uint64_t(st.st_size) == d.size &&
      nanoseconds(st.st_mtim) == d.modified_ns && nanoseconds(st.st_ctim) == d.changed_ns)
    return true;
  dependency now;
  return describe_dependency(d.path, &now) && now.digest == d.digest;
}

bool is_entry_name(const std::string& name) {
  // <64 hex digits>.flmod, and the <32 hex digits>.so of older versions
  auto hex_then = [&name](size_t digits, const std::string& suffix) {
    return name.size() == digits + suffix.size() && name.compare(digits, std::string::npos, suffix) == 0 &&
           std::all_of(name.begin(), name.begin() + digits,
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  };
  return hex_then(64, kEntrySuffix) || hex_then(32, ".so");
}

}  // namespace

bool describe_dependency(const std::string& path, dependency* out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  sha256 hash;
  char buffer[1 << 16];
  while (ok) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ok = got == 0;
      break;
    }
    hash.add(buffer, static_cast<size_t>(got));
  }
  close(fd);
  if (!ok) return false;
  out->path = path;
  out->digest = to_hex(hash.digest());
  out->device = st.st_dev;
  out->inode = st.st_ino;
  out->size = static_cast<uint64_t>(st.st_size);
  out->modified_ns = nanoseconds(st.st_mtim);
  out->changed_ns = nanoseconds(st.st_ctim);
  return true;
}

std::string disk_error(int error, const std::string& what, const std::string& where) {
  if (error == ENOSPC || error == EDQUOT)
    return std::string(error == ENOSPC ? "no space left on device" : "disk quota exceeded") + " (trying to " + what +
           " in " + where + "): free some space there, or set FUSELAB_CACHE to a folder on another disk";
  return "cannot " + what + " in " + where + ": " + strerror(error);
}

std::unique_ptr<module_cache> module_cache::open(const std::string& folder, uint64_t max_bytes, std::string* error) {
  make_folders(folder);
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP || errno == ENOTDIR)
      *error = "the cache folder " + folder + " is a symbolic link or not a folder: set FUSELAB_CACHE to a folder";
    else
      *error = disk_error(errno, "create the cache folder", folder);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
    *error = "the cache folder " + folder + " belongs to " + user_name(st.st_uid) +
             ", not to you: modules are only loaded from a folder of your own (set FUSELAB_CACHE)";
    close(fd);
    return nullptr;
  }
  // Another user able to enter the folder could plant modules in it or read what was compiled.
  if ((st.st_mode & 077) != 0 && fchmod(fd, 0700) != 0) {
    *error = "the cache folder " + folder + " is open to other users and cannot be made private: " + strerror(errno);
    close(fd);
    return nullptr;
  }

  std::string secret;
  for (int attempt = 0; attempt < 3 && secret.empty(); attempt++) {
    int secret_fd = openat(fd, kSecretName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (secret_fd >= 0) {
      struct stat secret_st;
      std::string text;
      bool valid = fstat(secret_fd, &secret_st) == 0 && owned_privately(secret_st) && (secret_st.st_mode & 077) == 0 &&
                   read_all(secret_fd, &text, kSecretBytes) && text.size() == kSecretBytes;
      close(secret_fd);
      if (valid) {
        secret = text;
        break;
      }
      // Not ours or damaged: entries signed with it are rebuilt under a new one.
      unlinkat(fd, kSecretName, 0);
    }
    std::string temporary = temporary_name("secret");
    int out = openat(fd, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
      *error = disk_error(errno, "create a file", folder);
      close(fd);
      return nullptr;
    }
    std::string fresh = random_bytes(kSecretBytes);
    bool written = write_all(out, fresh);
    int write_errno = errno;
    close(out);
    // link, unlike rename, fails when another process made its secret first: then that one is read.
    bool linked = written && linkat(fd, temporary.c_str(), fd, kSecretName, 0) == 0;
    unlinkat(fd, temporary.c_str(), 0);
    if (!written) {
      *error = disk_error(write_errno, "write a file", folder);
      close(fd);
      return nullptr;
    }
    if (linked) secret = fresh;
  }
  if (secret.empty()) {
    *error = "cannot create the signing key of the cache folder " + folder;
    close(fd);
    return nullptr;
  }
  return std::unique_ptr<module_cache>(new module_cache(fd, folder, secret, max_bytes));
}

module_cache::module_cache(int folder_fd, std::string folder, std::string secret, uint64_t max_bytes)
    : folder_fd_(folder_fd), folder_(std::move(folder)), secret_(std::move(secret)), max_bytes_(max_bytes) {}

module_cache::~module_cache() { close(folder_fd_); }

bool module_cache::find(const std::string& key, std::string* module) {
  const std::string name = key + kEntrySuffix;
  int fd = openat(folder_fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  std::string text;
  bool readable = fstat(fd, &st) == 0 && owned_privately(st) && uint64_t(st.st_size) <= kMostEntryBytes &&
                  read_all(fd, &text, kMostEntryBytes);
  // Touched on use: eviction removes the entries used least recently.
  if (readable) futimens(fd, nullptr);
  close(fd);

  // fuselab-module 1 \n <signature> \n <body>, where the body is:
  // key <key> \n deps <n> \n (<digest> <device> <inode> <size> <mtime> <ctime> <path bytes> <path> \n)* payload <bytes> \n <module>
  size_t at = 0;
  std::string signature, word;
  bool valid = readable && expect_text(text, &at, kEntryMagic) && next_word(text, &at, &signature) &&
               signature == to_hex(hmac_sha256(secret_, text.substr(at)));
  uint64_t count = 0;
  valid = valid && expect_text(text, &at, "key " + key + "\n") && expect_text(text, &at, "deps ") &&
          next_number(text, &at, &count);
  std::vector<dependency> dependencies;
  for (uint64_t i = 0; valid && i < count; i++) {
    dependency d;
    uint64_t path_bytes = 0;
    valid = next_word(text, &at, &d.digest) && next_number(text, &at, &d.device) && next_number(text, &at, &d.inode) &&
            next_number(text, &at, &d.size) && next_signed(text, &at, &d.modified_ns) &&
            next_signed(text, &at, &d.changed_ns) && next_number(text, &at, &path_bytes) &&
            path_bytes < text.size() - at;
    if (!valid) break;
    d.path = text.substr(at, path_bytes);
    at += path_bytes;
    valid = expect_text(text, &at, "\n");
    dependencies.push_back(std::move(d));
  }
  uint64_t payload_bytes = 0;
  valid = valid && expect_text(text, &at, "payload ") && next_number(text, &at, &payload_bytes) &&
          payload_bytes == text.size() - at;
  if (valid && std::all_of(dependencies.begin(), dependencies.end(), unchanged)) {
    *module = text.substr(at);
    return true;
  }
  // Damaged, foreign or stale: removed so that the rebuilt module replaces it.
  unlinkat(folder_fd_, name.c_str(), 0);
  return false;
}

bool module_cache::store(const std::string& key, const std::vector<dependency>& dependencies,
                         const std::string& module, std::string* error) {
  std::string body = "key " + key + "\ndeps " + std::to_string(dependencies.size()) + "\n";
  for (const dependency& d : dependencies) {
    body += d.digest + " " + std::to_string(d.device) + " " + std::to_string(d.inode) + " " + std::to_string(d.size) +
            " " + std::to_string(d.modified_ns) + " " + std::to_string(d.changed_ns) + " " +
            std::to_string(d.path.size()) + " " + d.path + "\n";
  }
  body += "payload " + std::to_string(module.size()) + "\n" + module;
  const std::string text = kEntryMagic + to_hex(hmac_sha256(secret_, body)) + "\n" + body;

  const std::string temporary = temporary_name(key.substr(0, 16));
  int fd = openat(folder_fd_, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = disk_error(errno, "create a cache entry", folder_);
    return false;
  }
  bool written = write_all(fd, text);
  int write_errno = errno;
  if (close(fd) != 0 && written) {
    written = false;
    write_errno = errno;
  }
  // A rename replaces the entry at once: readers see the old file or the new one, whole.
  if (!written || renameat(folder_fd_, temporary.c_str(), folder_fd_, (key + kEntrySuffix).c_str()) != 0) {
    if (written) write_errno = errno;
    unlinkat(folder_fd_, temporary.c_str(), 0);
    *error = disk_error(write_errno, "write a cache entry of " + std::to_string(text.size()) + " bytes", folder_);
    return false;
  }
  evict();
  return true;
}

void module_cache::evict() {
  int listing_fd = dup(folder_fd_);
  DIR* listing = listing_fd >= 0 ? fdopendir(listing_fd) : nullptr;
  if (!listing) {
    if (listing_fd >= 0) close(listing_fd);
    return;
  }
  struct entry {
    int64_t used_ns;
    uint64_t bytes;
    std::string name;
  };
  std::vector<entry> entries;
  std::vector<std::string> stale;
  uint64_t total = 0;
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  while (const dirent* found = readdir(listing)) {
    std::string name = found->d_name;
    struct stat st;
    if (fstatat(folder_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (name.rfind(".tmp-", 0) == 0 || name.rfind(".build-", 0) == 0) {
      if (now.tv_sec - st.st_mtim.tv_sec > kStaleSeconds) stale.push_back(name);
    } else if (is_entry_name(name) && S_ISREG(st.st_mode)) {
      entries.push_back({nanoseconds(st.st_mtim), uint64_t(st.st_size), name});
      total += uint64_t(st.st_size);
    }
  }
  closedir(listing);
  for (const std::string& name : stale) {
    std::error_code ignored;
    std::filesystem::remove_all(std::filesystem::path(folder_) / name, ignored);
  }
  std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) { return a.used_ns < b.used_ns; });
  for (const entry& e : entries) {
    if (total <= max_bytes_) break;
    if (unlinkat(folder_fd_, e.name.c_str(), 0) == 0) total -= e.bytes;
  }
}

}  // namespace fl::cpu
