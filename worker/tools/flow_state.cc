#include "worker/tools/flow_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace taskboard::worker {
namespace {

Json MessageJson(const v1::ChatMessage& message) {
  Json out = {{"role", message.role()}, {"content", message.content()}};
  if (!message.tool_calls().empty()) {
    Json calls = Json::array();
    for (const v1::ChatToolCall& call : message.tool_calls()) {
      calls.push_back(
          {{"id", call.id()}, {"name", call.name()}, {"arguments", call.arguments_json()}});
    }
    out["tool_calls"] = std::move(calls);
  }
  if (!message.tool_call_id().empty()) out["tool_call_id"] = message.tool_call_id();
  if (!message.name().empty()) out["name"] = message.name();
  return out;
}

}  // namespace

void ConversationLog::Sync(const std::vector<v1::ChatMessage>& messages, int turn) {
  absl::MutexLock lock(&mu_);
  turn_ = turn;
  for (size_t i = synced_; i < messages.size(); ++i) messages_.push_back(MessageJson(messages[i]));
  synced_ = std::max(synced_, messages.size());
}

int ConversationLog::turn() const {
  absl::MutexLock lock(&mu_);
  return turn_;
}

Json ConversationLog::Tail(size_t max_messages, size_t max_bytes, bool* truncated) const {
  absl::MutexLock lock(&mu_);
  size_t first = messages_.size() > max_messages ? messages_.size() - max_messages : 0;
  // Newest first until the budget is spent: the recent turns matter most.
  size_t bytes = 2;
  size_t start = messages_.size();
  while (start > first) {
    const size_t size = DumpJson(messages_[start - 1]).size() + 1;
    if (bytes + size > max_bytes) break;
    bytes += size;
    --start;
  }
  *truncated = start > 0;
  Json out = Json::array();
  for (size_t i = start; i < messages_.size(); ++i) out.push_back(messages_[i]);
  return out;
}

Json FlowState::IdentityJson() const {
  return {{"run_id", run_id},
          {"task_id", task_id},
          {"root_run_id", root_run_id},
          {"parent_run_id", parent_run_id},
          {"is_child", !parent_run_id.empty()},
          {"attempt", attempt},
          {"agent", agent},
          {"turn", turn()}};
}

std::vector<std::pair<std::string, std::string>> FlowState::Environment() const {
  std::vector<std::pair<std::string, std::string>> env = {
      {"TASKBOARD_RUN_ID", run_id},
      {"TASKBOARD_TASK_ID", task_id},
      {"TASKBOARD_ROOT_RUN_ID", root_run_id},
      {"TASKBOARD_PARENT_RUN_ID", parent_run_id},
      {"TASKBOARD_ATTEMPT", absl::StrCat(attempt)},
      {"TASKBOARD_TURN", absl::StrCat(turn())}};
  env.insert(env.end(), tool_environment.begin(), tool_environment.end());
  return env;
}

v1::RunStateRequest FlowState::Request(v1::RunStateRequest::Op op) const {
  v1::RunStateRequest request;
  request.set_task_id(task_id);
  request.set_lease_id(lease_id);
  request.set_op(op);
  return request;
}

}  // namespace taskboard::worker
