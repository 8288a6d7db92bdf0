#include "scheduler/engine/runs/event_size.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "scheduler/engine/state/run_limits.h"

namespace taskboard::engine {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct TextField {
  Message* message;
  const FieldDescriptor* field;
  int index;  // for repeated fields; -1 for singular ones
  size_t size;
};

std::string Get(const TextField& text) {
  const Reflection& reflection = *text.message->GetReflection();
  return text.index < 0 ? reflection.GetString(*text.message, text.field)
                        : reflection.GetRepeatedString(*text.message, text.field, text.index);
}

void Set(const TextField& text, std::string value) {
  const Reflection& reflection = *text.message->GetReflection();
  if (text.index < 0) {
    reflection.SetString(text.message, text.field, std::move(value));
  } else {
    reflection.SetRepeatedString(text.message, text.field, text.index, std::move(value));
  }
}

// Every set string field of `message` and the messages inside it.
void CollectTexts(Message& message, std::vector<TextField>& out) {
  const Reflection& reflection = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
          out.push_back({&message, field, i,
                         reflection.GetRepeatedStringReference(message, field, i, nullptr).size()});
        }
      } else {
        out.push_back(
            {&message, field, -1, reflection.GetStringReference(message, field, nullptr).size()});
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_map()) continue;  // labels and the like: small
      if (field->is_repeated()) {
        for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
          CollectTexts(*reflection.MutableRepeatedMessage(&message, field, i), out);
        }
      } else {
        CollectTexts(*reflection.MutableMessage(&message, field), out);
      }
    }
  }
}

// The longest prefix of `text` of at most `max_bytes` that does not end
// inside a UTF-8 character.
size_t Utf8PrefixLength(const std::string& text, size_t max_bytes) {
  size_t end = std::min(max_bytes, text.size());
  while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return end;
}

}  // namespace

bool FitEventToLimit(v1::RunEvent& event, int64_t max_bytes) {
  int64_t size = static_cast<int64_t>(event.ByteSizeLong());
  if (size <= max_bytes) return false;
  std::vector<TextField> texts;
  CollectTexts(event, texts);
  std::sort(texts.begin(), texts.end(),
            [](const TextField& a, const TextField& b) { return a.size > b.size; });
  auto marker = [](size_t shown, size_t total) {
    return absl::StrCat("…[cut: ", shown, " of ", total, " bytes shown; scheduler flag ",
                        limit_flags::kMaxEventBytes, "]");
  };
  for (const TextField& text : texts) {
    if (size <= max_bytes) break;
    // The marker at its longest, plus slack for the field's length prefix.
    const size_t room = marker(text.size, text.size).size() + 8;
    if (text.size <= room) break;  // the rest are shorter: cutting would not shrink them
    const std::string value = Get(text);
    const size_t excess = static_cast<size_t>(size - max_bytes) + room;
    const size_t keep = excess >= value.size() ? 0 : Utf8PrefixLength(value, value.size() - excess);
    Set(text, absl::StrCat(value.substr(0, keep), marker(keep, value.size())));
    size = static_cast<int64_t>(event.ByteSizeLong());
  }
  return true;
}

}  // namespace taskboard::engine
