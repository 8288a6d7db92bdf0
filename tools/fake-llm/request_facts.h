#ifndef TASKBOARD_TOOLS_FAKE_LLM_REQUEST_FACTS_H_
#define TASKBOARD_TOOLS_FAKE_LLM_REQUEST_FACTS_H_

// What the fake LLM's rules can match on, read once from a chat completion
// request body.

#include <cstdint>
#include <string>

#include "common/json.h"

namespace taskboard::fake_llm {

struct RequestFacts {
  std::string model;
  // Every message's text, joined by newlines (array contents contribute their
  // text parts).
  std::string all_content;
  // The last `user` message's text, "" when there is none.
  std::string last_user;
  // The `system` and `developer` messages' text.
  std::string system;
  // The `tool` (and legacy `function`) messages' text.
  std::string tool_results;
  bool has_tool_results = false;
  // Assistant messages already in the conversation + 1.
  int64_t turn = 1;
  bool stream = false;
  // `stream_options.include_usage`: a final streamed chunk carries usage.
  bool include_usage = false;
};

// Tolerant of any shape: missing or odd fields read as empty.
RequestFacts ReadRequestFacts(const Json& request);

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_REQUEST_FACTS_H_
