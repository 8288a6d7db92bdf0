#include "tools/cli/audit_command.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/text_table.h"
#include "tools/cli/usage_since.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kAuditCommand = "taskboard audit";
// ListAuditEvents' largest page.
constexpr int kMaxPage = 1000;

std::string OutcomeText(const v1::AuditEvent& event) {
  switch (event.outcome()) {
    case v1::AUDIT_OUTCOME_OK:
      return "ok";
    case v1::AUDIT_OUTCOME_ERROR:
      return absl::StrCat("error ", event.code());
    case v1::AUDIT_OUTCOME_REFUSED:
      return absl::StrCat("refused ", event.code());
    default:
      return event.code();
  }
}

std::string TimeText(const google::protobuf::Timestamp& time) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S",
                          absl::FromUnixSeconds(time.seconds()) + absl::Nanoseconds(time.nanos()),
                          absl::UTCTimeZone());
}

// Sets `field` from a --since/--until text; false after saying why.
bool SetTime(absl::string_view flag, const std::string& text, absl::Time now,
             google::protobuf::Timestamp* field, std::ostream& err) {
  if (text.empty()) return true;
  const absl::StatusOr<absl::Time> parsed = ParseUsageSince(text, now);
  if (!parsed.ok()) {
    err << kAuditCommand << ": " << flag << ": " << parsed.status().message() << "\n";
    return false;
  }
  field->set_seconds(absl::ToUnixSeconds(*parsed));
  return true;
}

}  // namespace

int RunAudit(const AuditOptions& options, std::ostream& out, std::ostream& err) {
  if (options.limit <= 0) {
    err << kAuditCommand << ": --limit must be above 0\n";
    return 2;
  }
  const absl::Time now = options.now.value_or(absl::Now());
  v1::ListAuditEventsRequest request;
  request.set_tenant(options.tenant);
  request.set_actor(options.actor);
  request.set_method(options.method);
  request.set_target(options.target);
  if (!SetTime("--since", options.since, now, request.mutable_since(), err) ||
      !SetTime("--until", options.until, now, request.mutable_until(), err)) {
    return 2;
  }
  if (options.since.empty()) request.clear_since();
  if (options.until.empty()) request.clear_until();
  SchedulerClient client(options.scheduler);
  v1::ListAuditEventsResponse all;
  while (all.events_size() < options.limit) {
    request.set_page_size(std::min(kMaxPage, options.limit - all.events_size()));
    v1::ListAuditEventsResponse page;
    if (int code = CallScheduler(client, kAuditCommand, &v1::Scheduler::Stub::ListAuditEvents,
                                 request, &page, err);
        code != 0) {
      return code;
    }
    for (v1::AuditEvent& event : *page.mutable_events()) *all.add_events() = std::move(event);
    all.set_next_page_token(page.next_page_token());
    if (page.next_page_token().empty()) break;
    request.set_page_token(page.next_page_token());
  }
  if (options.json) {
    out << ProtoToJsonPretty(all) << "\n";
    return 0;
  }
  if (all.events().empty()) {
    err << "no audit records" << (options.tenant.empty() ? "" : " for tenant " + options.tenant)
        << "\n";
    return 0;
  }
  TextTable table({"TIME (UTC)", "TENANT", "ACTOR", "ROLE", "METHOD", "TARGET", "OUTCOME", "PEER"});
  for (const v1::AuditEvent& event : all.events()) {
    table.AddRow({TimeText(event.time()), event.tenant(), event.actor(), event.role(),
                  event.method(), event.target(), OutcomeText(event), event.peer()});
  }
  table.Print(out, options.width);
  if (!all.next_page_token().empty()) {
    err << "(more records: raise --limit or narrow with --since/--until)\n";
  }
  return 0;
}

void AddAuditCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<AuditOptions>();
  options->width = commands.out_terminal().width;
  CLI::App* command = app.add_subcommand(
      "audit", "The audit trail: who changed what, from where, and how it went (newest first)");
  command->add_option("--tenant", options->tenant,
                      "Only this tenant (default: every tenant your token may read)");
  command->add_option("--actor", options->actor, "Only calls by this token name");
  command->add_option("--method", options->method,
                      "Only this method (SubmitRun, Scheduler.DrainWorker, ...)");
  command->add_option("--target", options->target,
                      "Only this target (a run id, run/step, flow name, worker id)");
  command->add_option("--since", options->since,
                      "From this UTC day (2026-10-26) or this long ago (7d, 24h)");
  command->add_option("--until", options->until, "Before this UTC day or this long ago");
  command->add_option("--limit", options->limit, "At most this many records")
      ->capture_default_str();
  command->add_flag("--json", options->json,
                    "Print the records as a ListAuditEvents response in JSON");
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunAudit(*options, out, err);
  });
}

}  // namespace taskboard::cli
