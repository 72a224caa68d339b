// SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104): the compile cache names its
// entries by a digest of what went into them and signs what it writes.
#ifndef FUSELAB_CPU_SHA256_H
#define FUSELAB_CPU_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <string>

namespace fl::cpu {

class sha256 {
 public:
  sha256();
  sha256& add(const void* data, size_t bytes);
  sha256& add(const std::string& text) { return add(text.data(), text.size()); }
  // Adds the text's length before it, so that consecutive fields cannot run into each other.
  sha256& add_field(const std::string& text);
  // The 32-byte digest; the object must not be used afterwards.
  std::string digest();

 private:
  void block(const unsigned char* p);
  uint32_t state_[8];
  unsigned char pending_[64];
  size_t pending_bytes_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string hmac_sha256(const std::string& key, const std::string& message);
std::string to_hex(const std::string& bytes);

}  // namespace fl::cpu

#endif
