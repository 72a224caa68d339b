#include "extents.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace fl::addon {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// Reads one extent ("rows*2*d") into postfix steps: sum := product ('+' product)*,
// product := factor ('*' factor)*, factor := integer | scalar name | '(' sum ')'.
class ExtentReader {
 public:
  ExtentReader(const std::string& text, const KernelState& kernel) : text_(text), kernel_(kernel) {}

  // Empty on success, else what is wrong.
  std::string read(Extent* extent) {
    extent->text = text_;
    steps_ = &extent->steps;
    if (!sum()) return error_;
    skip_spaces();
    if (at_ < text_.size()) return "unexpected '" + text_.substr(at_, 1) + "'";
    return "";
  }

 private:
  void skip_spaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool next_is(char c) {
    skip_spaces();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool sum() {
    if (!product()) return false;
    while (next_is('+')) {
      if (!product()) return false;
      steps_->push_back({Extent::kAdd});
    }
    return true;
  }
  bool product() {
    if (!factor()) return false;
    while (next_is('*')) {
      if (!factor()) return false;
      steps_->push_back({Extent::kMultiply});
    }
    return true;
  }
  bool factor() {
    if (next_is('(')) {
      if (!sum()) return false;
      if (!next_is(')')) return failed("a ')' is missing");
      return true;
    }
    skip_spaces();
    const size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) ++at_;
    const std::string word = text_.substr(start, at_ - start);
    if (word.empty()) return failed(at_ < text_.size() ? "unexpected '" + text_.substr(at_, 1) + "'" : "it ends early");
    if (std::isdigit(static_cast<unsigned char>(word[0]))) {
      uint64_t value = 0;
      for (char c : word) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return failed("'" + word + "' is not a number");
        if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
            __builtin_add_overflow(value, static_cast<uint64_t>(c - '0'), &value)) {
          return failed("'" + word + "' does not fit in 64 bits");
        }
      }
      steps_->push_back({Extent::kLiteral, value});
      return true;
    }
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const ParamKind& p = kernel_.params[i];
      if (p.name != word) continue;
      const ValueType* type = find_value_type(p.type);
      if (p.pointer || type == nullptr || !type->integer) return failed("'" + word + "' is not an integer scalar");
      steps_->push_back({Extent::kScalar, 0, i});
      return true;
    }
    return failed("'" + word + "' names no parameter");
  }
  bool failed(const std::string& why) {
    error_ = why;
    return false;
  }

  const std::string& text_;
  const KernelState& kernel_;
  size_t at_ = 0;
  std::vector<Extent::Step>* steps_ = nullptr;
  std::string error_;
};

// The list's entries, split at spaces outside brackets: "out[rows * cols]" is one.
std::vector<std::string> entries(const std::string& list) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == ' ' && depth == 0) {
      if (!current.empty()) out.push_back(current);
      current.clear();
      continue;
    }
    if (c == '[') ++depth;
    if (c == ']') --depth;
    current += c;
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// A scalar argument's value as the kernel will see it.
struct ScalarValue {
  bool negative = false;
  uint64_t magnitude = 0;
};

ScalarValue scalar_value(const ParamKind& param, uint64_t slot) {
  const ValueType& type = *find_value_type(param.type);  // an integer type: checked when the extent was read
  const unsigned bits = static_cast<unsigned>(type.bytes * 8);
  const uint64_t raw = bits == 64 ? slot : slot & ((uint64_t{1} << bits) - 1);
  const bool negative = type.is_signed && (raw >> (bits - 1)) != 0;
  if (!negative) return {false, raw};
  // The two's complement magnitude, within the type's width.
  const uint64_t magnitude = bits == 64 ? ~raw + 1 : ((~raw + 1) & ((uint64_t{1} << bits) - 1));
  return {true, magnitude};
}

// "n = 17" or "rows = 3, d = 5": the scalars an extent reads, for messages.
std::string scalars_of(const KernelState& kernel, const Extent& extent, const std::vector<uint64_t>& storage) {
  std::string text;
  std::vector<size_t> seen;
  for (const Extent::Step& step : extent.steps) {
    if (step.op != Extent::kScalar) continue;
    bool repeated = false;
    for (size_t s : seen) repeated = repeated || s == step.scalar;
    if (repeated) continue;
    seen.push_back(step.scalar);
    const ParamKind& p = kernel.params[step.scalar];
    const ScalarValue v = scalar_value(p, storage[step.scalar]);
    text += (text.empty() ? "" : ", ") + p.name + " = " + (v.negative ? "-" : "") + std::to_string(v.magnitude);
  }
  return text;
}

}  // namespace

void read_param_names(Napi::Env env, const std::string& list, KernelState* kernel) {
  const std::vector<std::string> names = entries(list);
  const auto refuse = [&](const std::string& why) {
    throw Napi::Error::New(env, "kernel " + kernel->name + ": its parameter list \"" + list + "\" " + why);
  };
  if (!kernel->has_signature) refuse("comes without a signature");
  if (names.size() != kernel->params.size()) {
    refuse("names " + std::to_string(names.size()) + " parameters, the kernel takes " +
           std::to_string(kernel->params.size()) + " (" + kernel->signature + ")");
  }
  std::vector<std::string> extents(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    ParamKind& p = kernel->params[i];
    const size_t open = names[i].find('[');
    p.name = names[i].substr(0, open);
    if (!is_identifier(p.name)) refuse("has '" + names[i] + "' where a parameter name belongs");
    if (open != std::string::npos) {
      if (names[i].back() != ']') refuse("has '" + names[i] + "': an extent ends with ']'");
      extents[i] = names[i].substr(open + 1, names[i].size() - open - 2);
    }
    if (p.pointer != (open != std::string::npos)) {
      refuse("gives " + p.name + (p.pointer ? " no extent: every pointer needs one" : " an extent, but it is not a pointer"));
    }
    if (p.pointer && find_value_type(p.type) == nullptr) refuse("points " + p.name + " at an unknown type '" + p.type + "'");
  }
  // Extents may name scalars that come later, so they are read once every name is known.
  for (size_t i = 0; i < names.size(); ++i) {
    if (extents[i].empty() && !kernel->params[i].pointer) continue;
    const std::string why = ExtentReader(extents[i], *kernel).read(&kernel->params[i].extent);
    if (!why.empty()) refuse("gives " + kernel->params[i].name + " the extent [" + extents[i] + "]: " + why);
  }
  // "f32*,const f32*,i32" becomes "f32* out,const f32* x,i32 n".
  std::string signature;
  size_t start = 0;
  for (const ParamKind& p : kernel->params) {
    const size_t comma = std::min(kernel->signature.find(',', start), kernel->signature.size());
    signature += (signature.empty() ? "" : ",") + kernel->signature.substr(start, comma - start) + " " + p.name;
    start = comma + 1;
  }
  kernel->signature = signature;
}

void check_extents(Napi::Env env, const LaunchState& launch) {
  const KernelState& k = *launch.kernel;
  // NVRTC and hiprtc give no signature: such a kernel's params are empty, with no extents to check.
  if (!k.has_signature) return;
  for (const PointerArg& pointer : launch.pointers) {
    const size_t i = pointer.index;
    const ParamKind& p = k.params[i];
    if (!p.pointer || p.extent.steps.empty()) continue;
    const std::string where = "kernel " + k.name + ": " + k.argument(i);
    const std::string extent = p.name + "[" + p.extent.text + "]";
    std::vector<uint64_t> stack;
    bool overflow = false;
    for (const Extent::Step& step : p.extent.steps) {
      if (step.op == Extent::kLiteral) {
        stack.push_back(step.literal);
      } else if (step.op == Extent::kScalar) {
        const ScalarValue v = scalar_value(k.params[step.scalar], launch.storage[step.scalar]);
        if (v.negative) {
          throw Napi::RangeError::New(env, "kernel " + k.name + ": " + k.argument(step.scalar) +
                                               " must not be negative (it counts the elements of " + extent + "), got -" +
                                               std::to_string(v.magnitude));
        }
        stack.push_back(v.magnitude);
      } else {
        const uint64_t b = stack.back();
        stack.pop_back();
        uint64_t& a = stack.back();
        overflow = overflow || (step.op == Extent::kAdd ? __builtin_add_overflow(a, b, &a) : __builtin_mul_overflow(a, b, &a));
      }
    }
    const size_t element = find_value_type(p.type)->bytes;
    uint64_t needed = 0;
    overflow = overflow || __builtin_mul_overflow(stack.back(), uint64_t{element}, &needed);
    const std::string scalars = scalars_of(k, p.extent, launch.storage);
    const std::string with = scalars.empty() ? "" : " with " + scalars;
    if (overflow) {
      throw Napi::RangeError::New(env, where + ": " + extent + with + " is more than 2^64 bytes");
    }
    if (needed > pointer.bytes) {
      const std::string held = !pointer.slot   ? "it is null"
                               : pointer.view ? "its view holds " + std::to_string(pointer.bytes) + " bytes"
                                              : "its buffer holds " + std::to_string(pointer.bytes) + " bytes";
      throw Napi::RangeError::New(env, where + " needs " + std::to_string(needed) + " bytes (" + extent + with + ": " +
                                           std::to_string(stack.back()) + " elements of " + p.type + "), " + held);
    }
  }
}

}  // namespace fl::addon
