#ifndef TASKBOARD_SCHEDULER_POLICY_COMPACTION_H_
#define TASKBOARD_SCHEDULER_POLICY_COMPACTION_H_

// The `compact{recent_n, summarizer_agent}` policy (docs/semantics.md#compact-summaries): the last
// recent_n observations verbatim, everything older folded into a narrative by
// a summarizer task the engine dispatches to `summarizer_agent`. This file is
// the pure part: what to summarize, the summarizer's prompt, and the final
// PriorWork. Narratives are kept in a NarrativeCache (narrative_cache.h).
//
// How the engine uses it, per dispatch of a task of a compact run:
//
//   plan = PlanCompaction(policy, ledger)
//   if !plan.needs_summary():                      // short ledger, or no summarizer
//     prior_work = ComposeCompact(policy, input, "")
//   else if text = cache.Find(plan.watermark):     // summarized at this watermark
//     prior_work = ComposeCompact(policy, input, *text)
//   else:
//     prev = cache.Latest(plan.watermark)          // extend, do not start over
//     plan = PlanCompaction(policy, ledger, prev ? prev->watermark : 0)
//     dispatch a summarizer task to policy.summarizer_agent with
//       SummarizerPrompt(ledger, plan, prev ? prev->text : "", max_bytes)
//     hold the waiting task(s); when the summarizer completes:
//       cache.Put(prompt.covers, output); dispatch them with ComposeCompact
//     if it fails: dispatch them with ComposeCompact(policy, input, prev text
//       or "") so a broken summarizer never blocks the run.
//
// The watermark is `size - recent_n`, so it moves with every new observation:
// every dispatch that sees the same ledger size shares one summary, and each
// new summary only reads the calls since the previous one.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/policy/policy_input.h"
#include "scheduler/policy/request_ledger.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

struct CompactionPlan {
  // The highest seq the narrative must cover; 0 = nothing to summarize.
  int64_t watermark = 0;
  // The summarizer reads seqs first_seq..watermark (1 unless extending).
  int64_t first_seq = 0;
  // > 0: the summarizer extends the narrative that covers 1..previous_watermark.
  int64_t previous_watermark = 0;

  bool needs_summary() const { return watermark > 0; }
  // first_seq..watermark, ascending.
  std::vector<int64_t> seqs() const;
};

// watermark = size - recent_n (recent_n defaulted as in effective_policy.h)
// when that is positive and a summarizer_agent is configured; else an empty
// plan (without a summarizer older observations are dropped, as in the
// seed's v1 compact). With 0 < previous_watermark < watermark only the seqs
// after previous_watermark are to be summarized; other values are ignored.
CompactionPlan PlanCompaction(const v1::CompactPolicy& policy, const RequestLedger& ledger,
                              int64_t previous_watermark = 0);

// The summarizer task's prompt: what to write, then the observations of the
// plan in FormatPriorWork form (labels qualified with the run id for child
// runs' calls), oldest first while the prompt stays within `max_bytes` (the
// first always). `covers` is the last call it holds: short of the plan's
// watermark when the rest did not fit, for the next summary to extend. A
// plan with previous_watermark > 0 needs the narrative it extends as
// `previous_narrative`. Bodies are read in chunks with ReadOrKeepError:
// after a read error the prompt is incomplete and the error is kept in the
// ledger (check TakeReadError).
struct SummaryPrompt {
  std::string text;
  int64_t covers = 0;
};
SummaryPrompt SummarizerPrompt(const RequestLedger& ledger, const CompactionPlan& plan,
                               absl::string_view previous_narrative = "",
                               size_t max_bytes = std::numeric_limits<size_t>::max());

// The last recent_n observations verbatim plus `narrative`. meta.policy is
// "compact"; selected counts the verbatim observations; tokens_approx
// includes the narrative's estimate.
v1::PriorWork ComposeCompact(const v1::CompactPolicy& policy, const PolicyInput& input,
                             absl::string_view narrative);

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_COMPACTION_H_
