#ifndef TASKBOARD_COMMON_JSON_DEPTH_H_
#define TASKBOARD_COMMON_JSON_DEPTH_H_

// The one nesting limit for JSON and YAML that Taskboard reads from anyone
// else: flows, run args, agent outputs, tool results, model replies, policy
// replies. Every converter in Taskboard (dumping, Struct conversion,
// interpolation, the flow decoder) recurses over documents; bounding depth at
// the parser keeps those recursions far from the end of any thread's stack,
// so a hostile `[[[[...` is one clear error instead of a dead process.
//
// The limit is process-wide: each binary sets it once from --max-json-depth
// before it starts serving (see AddJsonDepthFlag in the binaries' mains).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace taskboard {

inline constexpr int kDefaultMaxJsonDepth = 64;
// The flag's ceiling: past this the recursive converters would need stacks
// larger than the 8 MiB threads get by default.
inline constexpr int kMaxJsonDepthCeiling = 1000;

// The process-wide limit (kDefaultMaxJsonDepth until set). Thread-safe.
int MaxJsonDepth();
// INVALID_ARGUMENT outside [1, kMaxJsonDepthCeiling]; nothing changes then.
absl::Status SetMaxJsonDepth(int depth);

// The error every depth check returns: names the limit, the path of the
// first value past it ("$.phases[0].args" style), and the flag to raise.
absl::Status JsonTooDeepError(int limit, absl::string_view path);

// Where a scan stands inside a document: one frame per open array or object,
// turned into a JSONPath-like string for errors.
class JsonPathStack {
 public:
  void PushArray() { frames_.push_back({true, 0, {}}); }
  void PushObject() { frames_.push_back({false, 0, {}}); }
  void Pop() {
    if (!frames_.empty()) frames_.pop_back();
  }
  // In an array: the next element. In an object: the key just read.
  void NextIndex() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  void SetKey(std::string key) {
    if (!frames_.empty() && !frames_.back().array) frames_.back().key = std::move(key);
  }
  bool InArray() const { return !frames_.empty() && frames_.back().array; }
  size_t depth() const { return frames_.size(); }
  // "$", "$[3]", "$.phases[0].task", `$["odd key"]`.
  std::string Path() const;

 private:
  struct Frame {
    bool array;
    int64_t index;
    std::string key;
  };
  std::vector<Frame> frames_;
};

// Scans JSON text (valid or not) without recursion and fails with
// JsonTooDeepError when arrays/objects nest deeper than `limit`. Only
// brackets outside strings count; syntax errors are the parser's business.
absl::Status CheckJsonTextDepth(absl::string_view text, int limit);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_JSON_DEPTH_H_
