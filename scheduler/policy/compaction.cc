#include "scheduler/policy/compaction.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/observation_line.h"
#include "scheduler/policy/effective_policy.h"
#include "scheduler/policy/policy_names.h"
#include "scheduler/policy/prior_work_builder.h"
#include "scheduler/policy/selectors.h"
#include "scheduler/policy/token_estimate.h"

namespace taskboard::policy {
namespace {

constexpr absl::string_view kSummarizerInstructions =
    "Summarize the earlier tool calls of this request for the agents that work on its later "
    "tasks. Write a short plain-text narrative: what was looked up or done, what was found, and "
    "what failed. Keep the concrete facts a later task may need (names, paths, values, error "
    "messages); drop repetition; add nothing that is not in the calls. Reply with the narrative "
    "only.";

// Observations read from the ledger at once while writing a prompt.
constexpr int64_t kSummaryReadChunk = 256;

}  // namespace

std::vector<int64_t> CompactionPlan::seqs() const {
  std::vector<int64_t> seqs;
  if (!needs_summary()) return seqs;
  seqs.reserve(static_cast<size_t>(watermark - first_seq + 1));
  for (int64_t seq = first_seq; seq <= watermark; ++seq) seqs.push_back(seq);
  return seqs;
}

CompactionPlan PlanCompaction(const v1::CompactPolicy& policy, const RequestLedger& ledger,
                              int64_t previous_watermark) {
  CompactionPlan plan;
  const int64_t watermark = ledger.size() - EffectiveCompactRecentN(policy);
  if (watermark <= 0 || policy.summarizer_agent().empty()) return plan;
  plan.watermark = watermark;
  if (previous_watermark > 0 && previous_watermark < watermark) {
    plan.previous_watermark = previous_watermark;
  }
  plan.first_seq = plan.previous_watermark + 1;
  return plan;
}

SummaryPrompt SummarizerPrompt(const RequestLedger& ledger, const CompactionPlan& plan,
                               absl::string_view previous_narrative, size_t max_bytes) {
  const bool extending = plan.previous_watermark > 0 && !previous_narrative.empty();
  auto header = [&](int64_t last) {
    std::string text(kSummarizerInstructions);
    if (extending) {
      absl::StrAppend(&text, "\n\nSummary so far (tool calls 1-", plan.previous_watermark, "):\n",
                      previous_narrative, "\n\nTool calls ", plan.first_seq, "-", last,
                      " to fold into it:");
    } else {
      absl::StrAppend(&text, "\n\nTool calls ", plan.first_seq, "-", last, ":");
    }
    return text;
  };
  // The header names the last call, known only at the end; it is never
  // longer than with the plan's watermark.
  const size_t header_bytes = header(plan.watermark).size();
  std::string calls;
  int64_t covers = plan.first_seq - 1;
  bool full = false;
  // Read in chunks: a first summary of a long ledger covers all of it that
  // fits, and only one chunk of bodies is held at a time.
  std::vector<int64_t> chunk;
  for (int64_t first = plan.first_seq; plan.needs_summary() && !full && first <= plan.watermark;
       first += kSummaryReadChunk) {
    chunk.clear();
    for (int64_t seq = first; seq <= plan.watermark && seq < first + kSummaryReadChunk; ++seq) {
      chunk.push_back(seq);
    }
    std::vector<v1::Observation> observations = ledger.ReadOrKeepError(chunk);
    if (observations.size() != chunk.size()) break;  // the error is kept in the ledger
    for (size_t i = 0; i < observations.size(); ++i) {
      std::string line =
          absl::StrCat("\n", FormatObservation(observations[i], ledger.root_run_id()));
      // The first call always goes in (a body is bounded by the tool-result
      // limit), so every summary moves the narrative on.
      if (covers >= plan.first_seq && header_bytes + calls.size() + line.size() > max_bytes) {
        full = true;
        break;
      }
      calls += line;
      covers = chunk[i];
    }
  }
  SummaryPrompt prompt;
  prompt.covers = plan.needs_summary() ? covers : 0;
  prompt.text = header(plan.needs_summary() ? covers : plan.watermark) + calls;
  return prompt;
}

v1::PriorWork ComposeCompact(const v1::CompactPolicy& policy, const PolicyInput& input,
                             absl::string_view narrative) {
  TokenBounded recent =
      BoundByTokens(input.ledger, RecentSeqs(input.ledger, EffectiveCompactRecentN(policy)), 0);
  v1::PriorWork prior_work = MakePriorWork(kPolicyCompact, input.ledger, recent);
  prior_work.set_narrative(std::string(narrative));
  prior_work.mutable_meta()->set_tokens_approx(recent.tokens + EstimateTextTokens(narrative));
  return prior_work;
}

}  // namespace taskboard::policy
