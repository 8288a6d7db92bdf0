#include "scheduler/flow/cache_if.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/canonical_json.h"

namespace taskboard::flow {
namespace {

// Deep enough for any real predicate, shallow enough that `((((...` or
// `!!!!...` cannot exhaust the stack.
constexpr int kMaxDepth = 64;

constexpr absl::string_view kValueHint =
    "a value (a path such as result.status or args.path, a number, a \"string\", true, false "
    "or null) or '('";

bool IsNameStart(char c) { return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

const Json& SharedBool(bool value) {
  static const Json* const kTrue = new Json(true);
  static const Json* const kFalse = new Json(false);
  return value ? *kTrue : *kFalse;
}

const Json& SharedNull() {
  static const Json* const kNull = new Json(nullptr);
  return *kNull;
}

bool Truthy(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return false;
    case Json::value_t::boolean:
      return value.get<bool>();
    case Json::value_t::number_integer:
      return value.get<int64_t>() != 0;
    case Json::value_t::number_unsigned:
      return value.get<uint64_t>() != 0;
    case Json::value_t::number_float:
      return value.get<double>() != 0.0;
    case Json::value_t::string:
      return !value.get_ref<const std::string&>().empty();
    case Json::value_t::array:
    case Json::value_t::object:
      return !value.empty();
    default:
      return false;
  }
}

bool JsonEquals(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a == b;  // nlohmann compares across int/float
  if (a.type() != b.type()) return false;
  // ordered_json's == is key-order sensitive; the predicate's is not.
  if (a.is_structured()) return CanonicalJson(a) == CanonicalJson(b);
  return a == b;
}

// -1, 0, 1; nullopt when the values are not both numbers or both strings.
std::optional<int> JsonOrder(const Json& a, const Json& b) {
  const bool numbers = a.is_number() && b.is_number();
  const bool strings = a.is_string() && b.is_string();
  if (!numbers && !strings) return std::nullopt;
  if (a < b) return -1;
  if (b < a) return 1;
  return 0;
}

}  // namespace

// Recursive descent over the characters of the predicate; each Parse* method
// consumes one grammar rule (see cache_if.h) and returns the node it built.
class CacheIfParser {
 public:
  explicit CacheIfParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<CacheIf> Run() {
    CacheIf out;
    out.text_ = std::string(text_);
    out_ = &out;
    absl::StatusOr<int> root = ParseOr(0);
    if (!root.ok()) return root.status();
    SkipSpace();
    if (pos_ < text_.size()) {
      if (IsComparison()) {
        return Error("'&&', '||' or the end (comparisons cannot be chained; join them with &&)");
      }
      return Error("'&&', '||' or the end of the predicate");
    }
    out.root_ = *root;
    return out;
  }

 private:
  using Kind = CacheIf::Kind;
  using Node = CacheIf::Node;

  absl::StatusOr<int> ParseOr(int depth) {
    absl::StatusOr<int> lhs = ParseAnd(depth);
    while (lhs.ok() && Accept("||")) {
      absl::StatusOr<int> rhs = ParseAnd(depth);
      if (!rhs.ok()) return rhs;
      lhs = Add(Kind::kOr, *lhs, *rhs);
    }
    return lhs;
  }

  absl::StatusOr<int> ParseAnd(int depth) {
    absl::StatusOr<int> lhs = ParseCompare(depth);
    while (lhs.ok() && Accept("&&")) {
      absl::StatusOr<int> rhs = ParseCompare(depth);
      if (!rhs.ok()) return rhs;
      lhs = Add(Kind::kAnd, *lhs, *rhs);
    }
    return lhs;
  }

  absl::StatusOr<int> ParseCompare(int depth) {
    absl::StatusOr<int> lhs = ParseUnary(depth);
    if (!lhs.ok()) return lhs;
    SkipSpace();
    Kind kind;
    if (Accept("==")) {
      kind = Kind::kEq;
    } else if (Accept("!=")) {
      kind = Kind::kNe;
    } else if (Accept("<=")) {
      kind = Kind::kLe;
    } else if (Accept(">=")) {
      kind = Kind::kGe;
    } else if (Accept("<")) {
      kind = Kind::kLt;
    } else if (Accept(">")) {
      kind = Kind::kGt;
    } else if (Peek() == '=') {
      return Error("'==' (a single '=' is not an operator)");
    } else if (Peek() == '&' || Peek() == '|') {
      if (Next() != Peek()) return Error(absl::StrCat("'", std::string(2, Peek()), "'"));
      return lhs;
    } else {
      return lhs;
    }
    absl::StatusOr<int> rhs = ParseUnary(depth);
    if (!rhs.ok()) return rhs;
    return Add(kind, *lhs, *rhs);
  }

  absl::StatusOr<int> ParseUnary(int depth) {
    if (depth >= kMaxDepth) {
      return Error(absl::StrCat("at most ", kMaxDepth, " levels of '(' and '!'"));
    }
    SkipSpace();
    if (Peek() == '!' && Next() != '=') {
      ++pos_;
      absl::StatusOr<int> operand = ParseUnary(depth + 1);
      if (!operand.ok()) return operand;
      return Add(Kind::kNot, *operand, -1);
    }
    return ParsePrimary(depth);
  }

  absl::StatusOr<int> ParsePrimary(int depth) {
    SkipSpace();
    const char c = Peek();
    if (c == '(') {
      ++pos_;
      absl::StatusOr<int> inner = ParseOr(depth + 1);
      if (!inner.ok()) return inner;
      SkipSpace();
      if (!Accept(")")) return Error("')' or an operator");
      return inner;
    }
    if (c == '"') return ParseString();
    if (c == '-' || absl::ascii_isdigit(static_cast<unsigned char>(c))) return ParseNumber();
    if (IsNameStart(c)) return ParseName();
    return Error(kValueHint);
  }

  absl::StatusOr<int> ParseName() {
    const size_t start = pos_;
    const std::string name = ReadName();
    if (name == "true" || name == "false") return AddLiteral(Json(name == "true"));
    if (name == "null") return AddLiteral(Json(nullptr));
    if (name != "result" && name != "args") {
      pos_ = start;
      return Error(absl::StrCat("a path starting with 'result' or 'args' (did you mean result.",
                                name, "?) or a quoted string (\"", name, "\")"));
    }
    Node node;
    node.kind = Kind::kPath;
    node.from_result = name == "result";
    while (true) {
      if (Peek() == '.') {
        ++pos_;
        if (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) {
          return Error("a field name after '.' (use [N] for array elements)");
        }
        if (!IsNameStart(Peek())) return Error("a field name after '.'");
        CacheIf::PathStep step;
        step.field = ReadName();
        node.steps.push_back(std::move(step));
      } else if (Peek() == '[') {
        ++pos_;
        SkipSpace();
        CacheIf::PathStep step;
        if (Peek() == '"') {
          absl::StatusOr<Json> key = ReadString();
          if (!key.ok()) return key.status();
          step.field = key->get<std::string>();
        } else if (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) {
          step.is_index = true;
          const size_t digits_start = pos_;
          while (absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
          if (pos_ - digits_start > 9) {
            pos_ = digits_start;
            return Error("an array index below 1000000000");
          }
          step.index = std::stoul(std::string(text_.substr(digits_start, pos_ - digits_start)));
        } else {
          return Error("an array index (a non-negative integer) or a quoted field name");
        }
        SkipSpace();
        if (!Accept("]")) return Error("']'");
        node.steps.push_back(std::move(step));
      } else {
        break;
      }
    }
    return Add(std::move(node));
  }

  absl::StatusOr<int> ParseString() {
    absl::StatusOr<Json> value = ReadString();
    if (!value.ok()) return value.status();
    return AddLiteral(*std::move(value));
  }

  // A JSON string literal at pos_, validated by the JSON parser itself.
  absl::StatusOr<Json> ReadString() {
    const size_t start = pos_;
    size_t end = start + 1;
    while (end < text_.size() && text_[end] != '"') end += text_[end] == '\\' ? 2 : 1;
    if (end >= text_.size()) return Problem("the string that starts here has no closing '\"'");
    absl::StatusOr<Json> value = ParseJson(text_.substr(start, end + 1 - start));
    if (!value.ok() || !value->is_string()) return Error("a valid JSON string");
    pos_ = end + 1;
    return value;
  }

  absl::StatusOr<int> ParseNumber() {
    const size_t start = pos_;
    size_t end = start;
    while (end < text_.size() &&
           (absl::ascii_isdigit(static_cast<unsigned char>(text_[end])) || text_[end] == '-' ||
            text_[end] == '+' || text_[end] == '.' || text_[end] == 'e' || text_[end] == 'E')) {
      ++end;
    }
    absl::StatusOr<Json> value = ParseJson(text_.substr(start, end - start));
    if (!value.ok() || !value->is_number()) {
      return Problem(absl::StrCat("'", text_.substr(start, end - start),
                                  "' is not a JSON number (such as 200, -1.5 or 1e3)"));
    }
    pos_ = end;
    return AddLiteral(*std::move(value));
  }

  std::string ReadName() {
    const size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  int Add(Node node) {
    out_->nodes_.push_back(std::move(node));
    return static_cast<int>(out_->nodes_.size()) - 1;
  }
  int Add(Kind kind, int lhs, int rhs) {
    Node node;
    node.kind = kind;
    node.lhs = lhs;
    node.rhs = rhs;
    return Add(std::move(node));
  }
  int AddLiteral(Json value) {
    Node node;
    node.kind = Kind::kLiteral;
    node.literal = std::move(value);
    return Add(std::move(node));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  char Next() const { return pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0'; }
  bool Accept(absl::string_view token) {
    SkipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  bool IsComparison() const {
    const char c = Peek();
    return c == '=' || c == '<' || c == '>' || (c == '!' && Next() == '=');
  }

  // What sits at pos_, for error messages: one token-sized snippet.
  std::string Found() const {
    if (pos_ >= text_.size()) return "the end of the predicate";
    size_t end = pos_;
    if (IsNameChar(text_[end])) {
      while (end < text_.size() && IsNameChar(text_[end]) && end - pos_ < 24) ++end;
    } else {
      static constexpr absl::string_view kOperatorChars = "=!<>&|";
      while (end < text_.size() && kOperatorChars.find(text_[end]) != absl::string_view::npos &&
             end - pos_ < 2) {
        ++end;
      }
      if (end == pos_) ++end;
    }
    return absl::StrCat("'", text_.substr(pos_, end - pos_), "'");
  }

  // "column N: <what is wrong>", for problems better said than "expected".
  absl::Status Problem(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("cache_if column ", pos_ + 1, ": ", what));
  }

  absl::Status Error(absl::string_view expected) const {
    return absl::InvalidArgumentError(
        absl::StrCat("cache_if column ", pos_ + 1, ": expected ", expected, ", found ", Found()));
  }

  absl::string_view text_;
  size_t pos_ = 0;
  CacheIf* out_ = nullptr;
};

absl::StatusOr<CacheIf> CacheIf::Parse(absl::string_view text) { return CacheIfParser(text).Run(); }

bool CacheIf::Evaluate(const Json& result, const Json& args) const {
  return Truthy(Value(root_, result, args));
}

const Json& CacheIf::Value(int index, const Json& result, const Json& args) const {
  const Node& node = nodes_[static_cast<size_t>(index)];
  switch (node.kind) {
    case Kind::kLiteral:
      return node.literal;
    case Kind::kPath: {
      const Json* current = node.from_result ? &result : &args;
      for (const PathStep& step : node.steps) {
        if (step.is_index) {
          if (!current->is_array() || step.index >= current->size()) return SharedNull();
          current = &(*current)[step.index];
        } else {
          if (!current->is_object()) return SharedNull();
          auto it = current->find(step.field);
          if (it == current->end()) return SharedNull();
          current = &*it;
        }
      }
      return *current;
    }
    case Kind::kNot:
      return SharedBool(!Truthy(Value(node.lhs, result, args)));
    case Kind::kAnd:
      return SharedBool(Truthy(Value(node.lhs, result, args)) &&
                        Truthy(Value(node.rhs, result, args)));
    case Kind::kOr:
      return SharedBool(Truthy(Value(node.lhs, result, args)) ||
                        Truthy(Value(node.rhs, result, args)));
    case Kind::kEq:
    case Kind::kNe: {
      const bool equal = JsonEquals(Value(node.lhs, result, args), Value(node.rhs, result, args));
      return SharedBool(node.kind == Kind::kEq ? equal : !equal);
    }
    case Kind::kLt:
    case Kind::kLe:
    case Kind::kGt:
    case Kind::kGe: {
      const std::optional<int> order =
          JsonOrder(Value(node.lhs, result, args), Value(node.rhs, result, args));
      if (!order.has_value()) return SharedBool(false);
      switch (node.kind) {
        case Kind::kLt:
          return SharedBool(*order < 0);
        case Kind::kLe:
          return SharedBool(*order <= 0);
        case Kind::kGt:
          return SharedBool(*order > 0);
        default:
          return SharedBool(*order >= 0);
      }
    }
  }
  return SharedNull();
}

}  // namespace taskboard::flow
