#ifndef TASKBOARD_SCHEDULER_FLOW_JSON_READER_H_
#define TASKBOARD_SCHEDULER_FLOW_JSON_READER_H_

// Reads one JSON object of a flow document field by field, recording a
// path-qualified error for every field of the wrong type, and finally for
// every field nobody asked for (typos must not pass silently), with a
// "did you mean" hint when a known field is close.
//
//   JsonReader phase(doc["phases"][2], "phases[2]", &errors);
//   std::optional<std::string> id = phase.String("id");
//   std::vector<std::string> deps = phase.StringList("dependsOn");
//   phase.RejectUnknownFields();

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "scheduler/flow/flow_errors.h"

namespace taskboard::flow {

// `parent.key`, or `key` at the root.
std::string JoinPath(absl::string_view parent, absl::string_view key);
// `parent[index]`.
std::string IndexPath(absl::string_view parent, size_t index);
// `"null"`, `a number`, `an array`, ... for error messages.
std::string DescribeJsonType(const Json& value);

// True for `{key: null}`: what YAML makes of an unquoted placeholder such as
// `over: {steps.d.json}`. Errors about such values tell the user to quote it.
bool LooksLikeUnquotedPlaceholder(const Json& value);

// How a reader matches keys. Flow documents are written by people against a
// documented spelling, so kExact treats `depends_on` as an unknown field (with
// a did-you-mean). Pattern outputs are written by models, which use camelCase
// and snake_case interchangeably (`taskId`, `task_id`), so kAnySpelling also
// matches a key that differs only in case, `_` and `-`.
enum class KeySpelling { kExact, kAnySpelling };

// The value of `key` in `object` (an object), or of the first key that
// matches it as kAnySpelling does when there is no exact one; null if none.
const Json* FindAnySpelling(const Json& object, absl::string_view key);

// A boolean, or the string "true"/"false" in any case (models quote them);
// nullopt for anything else.
std::optional<bool> BoolOrQuotedBool(const Json& value);
inline constexpr char kQuotePlaceholderHint[] =
    "; YAML reads an unquoted {...} as a mapping, so quote placeholders: \"{steps.d.json}\"";

// Collects, while it lives, the field names every JsonReader on this thread
// is asked for (read or ignored), under the reader's path. The fields a
// decoder accepts are then its own getter calls, not a second list kept by
// hand: AcceptedFlowFields (flow_fields.h) decodes sample documents under a
// recorder, and a test compares the result with docs/flow-dsl.md. Recorders
// nest; the innermost one records.
class FieldRecorder {
 public:
  FieldRecorder();
  ~FieldRecorder();
  FieldRecorder(const FieldRecorder&) = delete;
  FieldRecorder& operator=(const FieldRecorder&) = delete;

  // Reader path (`phases[0]`, `""` for the root) -> field names.
  const std::map<std::string, std::set<std::string>>& fields() const { return fields_; }

 private:
  friend class JsonReader;
  static void Record(absl::string_view path, absl::string_view key);

  FieldRecorder* outer_;
  std::map<std::string, std::set<std::string>> fields_;
};

class JsonReader {
 public:
  // `object` must outlive the reader. A non-object records one error and
  // makes every getter return nothing.
  JsonReader(const Json& object, std::string path, FlowErrorList* errors,
             KeySpelling spelling = KeySpelling::kExact);

  bool valid() const { return object_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string FieldPath(absl::string_view key) const { return JoinPath(path_, key); }

  // Each getter marks `key` as known; absent keys (and null for optional
  // fields) yield nothing without error.
  const Json* Raw(absl::string_view key);
  std::optional<std::string> String(absl::string_view key);
  std::optional<bool> Bool(absl::string_view key);
  // An integer in [min, max] (floats with a fractional part are errors).
  std::optional<int64_t> Int(absl::string_view key, int64_t min, int64_t max);
  // A finite number (integer or not) >= min. Finiteness matters for YAML,
  // whose `1e999` and `-inf` read as infinities that JSON cannot write.
  std::optional<double> Number(absl::string_view key, double min);
  // An array of strings; a bad element records an error and is dropped.
  std::vector<std::string> StringList(absl::string_view key);
  // Marks a key as known without reading it (fields kept for compatibility).
  void Ignore(absl::string_view key);

  void RejectUnknownFields();

 private:
  void TypeError(absl::string_view key, absl::string_view expected, const Json& got);

  const Json* object_;
  std::string path_;
  FlowErrorList* errors_;
  KeySpelling spelling_;
  absl::flat_hash_set<std::string> known_;
};

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_JSON_READER_H_
