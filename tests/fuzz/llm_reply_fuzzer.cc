// libFuzzer target for what a model's server sends the worker's llm agent:
// a complete chat-completions response (ParseChatResponse) and a streamed
// one (ChatStreamAssembler, server-sent events). No HTTP: these are the pure
// parsers behind worker/agents/chat_client.cc.
//
// Beyond "no crash, no sanitizer report" it checks that a stream assembles
// to the same answer however its bytes are split, and that the content
// deltas handed on while streaming add up to the final content.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/util/message_differencer.h"
#include "worker/agents/chat_json.h"
#include "worker/agents/chat_stream.h"

namespace {

namespace worker = taskboard::worker;

struct Assembled {
  absl::StatusOr<worker::ChatResponse> response;
  std::string deltas;
  bool done;
};

// Feeds `stream` in pieces of `piece` bytes (all at once when 0).
Assembled Assemble(absl::string_view stream, size_t piece) {
  std::string deltas;
  worker::ChatStreamAssembler assembler(
      [&deltas](absl::string_view delta) { deltas.append(delta.data(), delta.size()); });
  if (piece == 0) {
    assembler.Feed(stream);
  } else {
    for (size_t i = 0; i < stream.size(); i += piece) assembler.Feed(stream.substr(i, piece));
  }
  absl::StatusOr<worker::ChatResponse> response = assembler.Finish();
  return {std::move(response), std::move(deltas), assembler.done()};
}

bool SameResponse(const worker::ChatResponse& a, const worker::ChatResponse& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a.message, b.message) &&
         a.finish_reason == b.finish_reason && a.prompt_tokens == b.prompt_tokens &&
         a.completion_tokens == b.completion_tokens && a.model == b.model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);

  (void)worker::ParseChatResponse(text);

  const Assembled whole = Assemble(text, 0);
  // The first byte picks a piece size, so splits inside lines, "\r\n" and
  // multi-byte characters all get tried; small pieces over a long line are
  // how a slow server delivers it.
  const size_t piece = size == 0 ? 1 : 1 + data[0] % 64;
  const Assembled split = Assemble(text, piece);
  if (whole.done != split.done || whole.response.status() != split.response.status()) {
    std::abort();  // the answer depends on how the bytes arrived
  }
  if (whole.response.ok()) {
    if (!SameResponse(*whole.response, *split.response)) std::abort();
    if (whole.deltas != whole.response->message.content()) std::abort();
  }
  return 0;
}
