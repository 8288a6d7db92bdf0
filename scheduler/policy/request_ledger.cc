#include "scheduler/policy/request_ledger.h"

#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/policy/token_estimate.h"

namespace taskboard::policy {

RequestLedger::RequestLedger(std::string root_run_id, ObservationSource* bodies)
    : root_run_id_(std::move(root_run_id)), bodies_(bodies) {}

const v1::Observation& RequestLedger::Append(v1::Observation obs) {
  obs.set_seq(size() + 1);
  Index(obs);
  if (holds_bodies()) {
    observations_.push_back(std::move(obs));
    return observations_.back();
  }
  bodies_->Appended(root_run_id_, obs);
  last_appended_ = std::move(obs);
  return last_appended_;
}

absl::Status RequestLedger::Restore(v1::Observation obs) {
  if (obs.seq() != size() + 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "ledger of request '", root_run_id_, "': restored observation has seq ", obs.seq(),
        " but seq ", size() + 1,
        " was expected next; restore observations in ascending seq order starting at 1"));
  }
  Index(obs);
  if (holds_bodies()) observations_.push_back(std::move(obs));
  return absl::OkStatus();
}

void RequestLedger::Index(const v1::Observation& obs) {
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
  if (!holds_bodies()) {
    log::Fatal("internal error: At() on a ledger whose bodies live in the store; use Read()")
        .With("root_run_id", root_run_id_)
        .With("seq", seq);
    std::abort();
  }
  return observations_[static_cast<size_t>(seq - 1)];
}

absl::StatusOr<std::vector<v1::Observation>> RequestLedger::Read(
    absl::Span<const int64_t> seqs) const {
  for (int64_t seq : seqs) CheckSeq(seq);
  if (holds_bodies()) {
    std::vector<v1::Observation> copies;
    copies.reserve(seqs.size());
    for (int64_t seq : seqs) copies.push_back(observations_[static_cast<size_t>(seq - 1)]);
    return copies;
  }
  if (seqs.empty()) return std::vector<v1::Observation>();
  return bodies_->Read(root_run_id_, seqs);
}

std::vector<v1::Observation> RequestLedger::ReadOrKeepError(absl::Span<const int64_t> seqs) const {
  absl::StatusOr<std::vector<v1::Observation>> read = Read(seqs);
  if (read.ok()) return *std::move(read);
  if (read_error_.ok()) read_error_ = read.status();
  return {};
}

absl::Status RequestLedger::TakeReadError() { return std::exchange(read_error_, absl::OkStatus()); }

int64_t RequestLedger::IndexBytes() const {
  auto vector_bytes = [](const auto& v) {
    return static_cast<int64_t>(v.capacity() * sizeof(v[0]));
  };
  int64_t bytes = vector_bytes(tokens_) + vector_bytes(tasks_) + vector_bytes(error_seqs_);
  for (const TaskKey& task : tasks_) {
    bytes += static_cast<int64_t>(task.run_id.capacity() + task.task_id.capacity());
  }
  bytes += static_cast<int64_t>(seqs_by_task_.capacity() *
                                (sizeof(TaskKey) + sizeof(std::vector<int64_t>) + 1));
  for (const auto& [task, seqs] : seqs_by_task_) {
    bytes +=
        vector_bytes(seqs) + static_cast<int64_t>(task.run_id.capacity() + task.task_id.capacity());
  }
  bytes += static_cast<int64_t>(seqs_by_tool_.capacity() *
                                (sizeof(std::string) + sizeof(std::vector<int64_t>) + 1));
  for (const auto& [tool, seqs] : seqs_by_tool_) bytes += vector_bytes(seqs);
  return bytes;
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
