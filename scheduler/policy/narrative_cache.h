#ifndef TASKBOARD_SCHEDULER_POLICY_NARRATIVE_CACHE_H_
#define TASKBOARD_SCHEDULER_POLICY_NARRATIVE_CACHE_H_

// The compact policy's summaries of one request, by ledger watermark: the
// narrative at watermark W covers seqs 1..W, and every dispatch whose
// compaction plan has watermark W reuses it instead of summarizing again
// (compaction.h shows the engine's use). Only the newest few are kept: the
// ledger only grows, so older watermarks are asked for again only by
// dispatches planned before a newer summary landed.
//
// Not thread-safe; owned with the request's ledger under the engine's lock.
// Narratives are derived data: after a restart the cache starts empty and the
// next dispatch summarizes again.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace taskboard::policy {

class NarrativeCache {
 public:
  // How many watermarks are kept (the newest).
  static constexpr int kKept = 4;

  struct Narrative {
    int64_t watermark = 0;
    std::string text;
  };

  // The narrative summarized at exactly `watermark`, or nullptr. Valid until
  // the next Put.
  const std::string* Find(int64_t watermark) const;

  // The narrative with the highest watermark <= at_most: the one a new
  // summary should extend.
  std::optional<Narrative> Latest(int64_t at_most) const;

  // Stores (or replaces) the narrative at `watermark`, evicting the oldest
  // beyond kKept.
  void Put(int64_t watermark, std::string text);

  int size() const { return static_cast<int>(by_watermark_.size()); }

 private:
  std::map<int64_t, std::string> by_watermark_;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_NARRATIVE_CACHE_H_
