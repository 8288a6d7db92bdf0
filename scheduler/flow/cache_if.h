#ifndef TASKBOARD_SCHEDULER_FLOW_CACHE_IF_H_
#define TASKBOARD_SCHEDULER_FLOW_CACHE_IF_H_

// The `cache_if` predicate of a tool cache rule (docs/semantics.md#cache-rules): decides,
// from a successful call's result and arguments, whether the result may be
// reused (stored, and handed to coalesced waiters). It is a small expression
// over the JSON document {"result": <result>, "args": <args>}:
//
//   expr     := or
//   or       := and ( "||" and )*
//   and      := compare ( "&&" compare )*
//   compare  := unary ( ("==" | "!=" | "<" | "<=" | ">" | ">=") unary )?
//   unary    := "!" unary | primary
//   primary  := "(" expr ")" | literal | path
//   literal  := JSON number | JSON "string" | true | false | null
//   path     := ("result" | "args") ( "." name | "[" index "]" | "[" "string" "]" )*
//   name     := [A-Za-z_][A-Za-z0-9_-]*
//
// e.g. `result.status == 200`, `result.items[0].ok && !args.dry_run`,
// `result["content-type"] == "application/json"`.
//
// Meaning:
//   - A path that does not resolve (missing field, index out of range, a
//     step into a scalar) is null. A bare path or literal used as a condition
//     is "truthy": not null, not false, not 0, not "", not [] and not {}.
//   - `==` / `!=` compare JSON values: numbers numerically (200 == 200.0),
//     values of different types are unequal, objects regardless of key order.
//   - `<` `<=` `>` `>=` hold only between two numbers or two strings (byte
//     order); with anything else (null, a missing path) they are false.
//   - `!` binds tighter than comparisons, as in C: write `!(a == b)`.
//   - Comparisons do not chain (`a == b == c` is an error).
//
// Parse errors are INVALID_ARGUMENT and name the 1-based column and what was
// expected there, so the flow validator can reject a bad predicate at submit.
// Thread safety: a parsed CacheIf is immutable; Evaluate may run concurrently.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::flow {

class CacheIfParser;

class CacheIf {
 public:
  // INVALID_ARGUMENT: "cache_if column N: expected ... (found ...)".
  static absl::StatusOr<CacheIf> Parse(absl::string_view text);

  // True when the predicate holds for this call. Never fails: missing paths
  // are null (see above).
  bool Evaluate(const Json& result, const Json& args) const;

  // The text it was parsed from.
  const std::string& text() const { return text_; }

 private:
  friend class CacheIfParser;

  enum class Kind { kPath, kLiteral, kNot, kAnd, kOr, kEq, kNe, kLt, kLe, kGt, kGe };
  struct PathStep {
    bool is_index = false;
    size_t index = 0;
    std::string field;
  };
  // Nodes live in `nodes_` and refer to their operands by position, which
  // keeps CacheIf a plain copyable value.
  struct Node {
    Kind kind = Kind::kLiteral;
    bool from_result = true;  // kPath: rooted at `result` (else `args`)
    std::vector<PathStep> steps;
    Json literal;
    int lhs = -1;
    int rhs = -1;
  };

  // The value of node `index`: a reference into `result`/`args`, a literal,
  // or a shared true/false/null.
  const Json& Value(int index, const Json& result, const Json& args) const;

  std::string text_;
  std::vector<Node> nodes_;
  int root_ = -1;
};

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_CACHE_IF_H_
