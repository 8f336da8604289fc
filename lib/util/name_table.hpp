#pragma once
// An index by name of things whose names live elsewhere (records in a vector, a plan's
// steps): a flat table of (value, hash) slots with open addressing, the name read back
// through the value. A million names cost 16 MB here, where a hash map of copied names
// cost 64 MB and a std::map 80 MB.
//
// `NameOf` is a callable: NameOf(value) -> std::string_view, the name the value holds now.
// A slot whose hash matches a name but whose value's name differs (what it indexed
// moved or changed) is reported as stale by find(), so that the owner can build again.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace ssim {

template <typename Value>
class NameTable {
 public:
  enum class Found { Yes, No, Stale };

  void clear() {
    slots_.clear();
    count_ = 0;
  }
  size_t size() const { return count_; }

  // Adds `value` under `name` (a name already there: the later value wins).
  template <typename NameOf>
  void insert(std::string_view name, Value value, NameOf&& name_of) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const uint32_t h = hash_of(name);
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (!s.hash) {
        s = {value, h};
        ++count_;
        return;
      }
      if (s.hash == h && name_of(s.value) == name) {
        s.value = value;
        return;
      }
    }
  }

  // The value under `name`, into `out`.
  template <typename NameOf>
  Found find(std::string_view name, NameOf&& name_of, Value& out) const {
    if (slots_.empty()) return Found::No;
    const uint32_t h = hash_of(name);
    bool stale = false;
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (!s.hash) return stale ? Found::Stale : Found::No;
      if (s.hash != h) continue;
      if (name_of(s.value) == name) {
        out = s.value;
        return Found::Yes;
      }
      stale = true;  // the same hash, another name: a collision, or a value that changed
    }
  }

 private:
  struct Slot {
    Value value{};
    uint32_t hash = 0;  // 0: an empty slot (a name's hash has its lowest bit set)
  };
  static uint32_t hash_of(std::string_view name) {
    return static_cast<uint32_t>(std::hash<std::string_view>{}(name)) | 1u;
  }
  size_t mask() const { return slots_.size() - 1; }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    count_ = 0;
    for (const Slot& s : old)
      if (s.hash) insert_hashed(s);
  }
  void insert_hashed(const Slot& slot) {
    for (size_t i = slot.hash & mask();; i = (i + 1) & mask())
      if (!slots_[i].hash) {
        slots_[i] = slot;
        ++count_;
        return;
      }
  }

  std::vector<Slot> slots_;  // a power of two long, at most half full
  size_t count_ = 0;
};

}  // namespace ssim
