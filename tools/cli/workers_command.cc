#include "tools/cli/workers_command.h"

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "tools/cli/display_format.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {

void PrintWorkerTable(const v1::ListWorkersResponse& workers, absl::Time now, int width,
                      std::ostream& out) {
  TextTable table(
      {"WORKER", "STATE", "RUNNING", "FREE", "AGENTS", "TOOLS", "CONNECTED", "LAST SEEN"});
  for (const v1::WorkerInfo& worker : workers.workers()) {
    const std::optional<absl::Time> connected = TimeFromProto(worker.connected_at());
    // A scheduler older than last_heartbeat leaves it unset: "-".
    const std::optional<absl::Time> last_seen = TimeFromProto(worker.last_heartbeat());
    table.AddRow({worker.worker_id(), worker.draining() ? "draining" : "ready",
                  absl::StrCat(worker.running()), absl::StrCat(worker.free_slots()),
                  absl::StrJoin(worker.agents(), ","),
                  worker.tools().empty() ? "-" : absl::StrJoin(worker.tools(), ","),
                  connected ? FormatAge(now - *connected) : "-",
                  last_seen ? absl::StrCat(FormatAge(now - *last_seen), " ago") : "-"});
  }
  table.Print(out, width);
}

int RunListWorkers(const WorkersOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::ListWorkersResponse response;
  if (int code = CallScheduler(client, "taskboard workers", &v1::Scheduler::Stub::ListWorkers,
                               v1::ListWorkersRequest(), &response, err);
      code != 0) {
    return code;
  }
  if (options.json) {
    out << ProtoToJsonPretty(response) << "\n";
  } else if (response.workers().empty()) {
    err << "no workers connected (start one with `taskboard-worker --scheduler ADDR`)\n";
  } else {
    PrintWorkerTable(response, absl::Now(), options.width, out);
  }
  return 0;
}

int RunDrainWorker(const WorkersOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::DrainWorkerRequest request;
  request.set_worker_id(options.drain_worker_id);
  request.set_grace_ms(int64_t{options.grace_seconds} * 1000);
  request.set_reason(options.reason);
  v1::DrainWorkerResponse response;
  if (int code = CallScheduler(client, "taskboard workers drain", &v1::Scheduler::Stub::DrainWorker,
                               request, &response, err);
      code != 0) {
    return code;
  }
  out << "worker " << response.worker().worker_id() << ": draining (" << response.worker().running()
      << " running, grace " << options.grace_seconds << "s)\n";
  return 0;
}

void AddWorkersCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<WorkersOptions>();
  options->width = commands.out_terminal().width;
  CLI::App* command = app.add_subcommand("workers", "List connected workers, or drain one");
  command->add_flag("--json", options->json, "Print the ListWorkers response as JSON");
  CLI::App* drain = command->add_subcommand(
      "drain", "Stop giving a worker work; it leaves once its tasks finish or are handed back");
  drain->add_option("worker", options->drain_worker_id, "Worker id (see `taskboard workers`)")
      ->required();
  drain
      ->add_option("--grace-seconds", options->grace_seconds,
                   "How long running tasks may take before they are handed back")
      ->check(CLI::Range(1, 86'400))
      ->capture_default_str();
  drain->add_option("--reason", options->reason, "Why (the worker logs it)");
  AddSchedulerOption(drain, &options->scheduler);
  commands.Add(drain, [options](std::ostream& out, std::ostream& err) {
    return RunDrainWorker(*options, out, err);
  });
  // After `drain`: CommandSet runs the first parsed entry, and the parent
  // counts as parsed for `workers drain` too.
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunListWorkers(*options, out, err);
  });
}

}  // namespace taskboard::cli
