#include "scheduler/policy/request_ledger.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/policy/token_estimate.h"

namespace taskboard::policy {

RequestLedger::RequestLedger(std::string root_run_id) : root_run_id_(std::move(root_run_id)) {}

const v1::Observation& RequestLedger::Append(v1::Observation obs) {
  obs.set_seq(size() + 1);
  return Insert(std::move(obs));
}

absl::Status RequestLedger::Restore(v1::Observation obs) {
  if (obs.seq() != size() + 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "ledger of request '", root_run_id_, "': restored observation has seq ", obs.seq(),
        " but seq ", size() + 1,
        " was expected next; restore observations in ascending seq order starting at 1"));
  }
  Insert(std::move(obs));
  return absl::OkStatus();
}

const v1::Observation& RequestLedger::Insert(v1::Observation obs) {
  const int64_t seq = obs.seq();
  tokens_.push_back(EstimateTokens(obs));
  if (!obs.task_id().empty()) {
    TaskKey task{obs.run_id(), obs.task_id()};
    auto [it, inserted] = seqs_by_task_.try_emplace(task);
    if (inserted) tasks_.push_back(std::move(task));
    it->second.push_back(seq);
  }
  if (!obs.error().empty()) error_seqs_.push_back(seq);
  seqs_by_tool_[obs.tool_name()].push_back(seq);
  observations_.push_back(std::move(obs));
  return observations_.back();
}

void RequestLedger::CheckSeq(int64_t seq) const {
  if (seq >= 1 && seq <= size()) return;
  log::Fatal("internal error: the request's ledger has no such seq")
      .With("root_run_id", root_run_id_)
      .With("seq", seq)
      .With("size", size());
  std::abort();
}

const v1::Observation& RequestLedger::At(int64_t seq) const {
  CheckSeq(seq);
  return observations_[static_cast<size_t>(seq - 1)];
}

int64_t RequestLedger::TokensAt(int64_t seq) const {
  CheckSeq(seq);
  return tokens_[static_cast<size_t>(seq - 1)];
}

absl::Span<const int64_t> RequestLedger::SeqsOfTask(const TaskKey& task) const {
  auto it = seqs_by_task_.find(task);
  if (it == seqs_by_task_.end()) return {};
  return it->second;
}

absl::Span<const int64_t> RequestLedger::SeqsOfTool(absl::string_view tool_name) const {
  auto it = seqs_by_tool_.find(tool_name);
  if (it == seqs_by_tool_.end()) return {};
  return it->second;
}

}  // namespace taskboard::policy
