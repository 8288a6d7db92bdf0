#include "tools/cli/ha_status_command.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "grpcpp/client_context.h"
#include "scheduler/ha/replication.grpc.pb.h"
#include "tools/cli/command_set.h"
#include "tools/cli/ha_failover_command.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/scheduler_client.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// A replica that does not answer within this is reported, not waited for.
constexpr absl::Duration kAskTimeout = absl::Seconds(5);

bool Leads(const ReplicaAnswer& answer) {
  return answer.status.has_value() && answer.status->role() == "leader";
}

std::string Lag(const ha::v1::ReplicaStatus& status) {
  const uint64_t applied = status.applied().index();
  return status.leader_last_index() > applied ? absl::StrCat(status.leader_last_index() - applied)
                                              : std::string("0");
}

// "yes" / "no" as the leader that answered counts each follower; "-" when
// no leader answered or for the leader itself.
std::string InSync(const ReplicaAnswer& answer, const ReplicaAnswer* leader) {
  if (leader == nullptr || !answer.status.has_value() || Leads(answer)) return "-";
  const auto& members = leader->status->in_sync();
  return std::find(members.begin(), members.end(), answer.status->replica_id()) != members.end()
             ? "yes"
             : "no";
}

}  // namespace

void PrintHaStatus(const std::vector<ReplicaAnswer>& answers, bool json, std::ostream& out) {
  if (json) {
    Json replicas = Json::array();
    for (const ReplicaAnswer& answer : answers) {
      Json entry = answer.status.has_value()
                       ? Json::parse(ProtoToJsonLine(*answer.status), nullptr, false)
                       : Json{{"error", answer.error}};
      entry["address"] = answer.address;
      replicas.push_back(std::move(entry));
    }
    out << Json{{"replicas", replicas}}.dump(2) << "\n";
    return;
  }
  const ReplicaAnswer* leader = nullptr;
  for (const ReplicaAnswer& answer : answers) {
    if (Leads(answer)) leader = &answer;
  }
  TextTable table({"ADDRESS", "REPLICA", "ROLE", "EPOCH", "APPLIED", "LAG", "IN-SYNC"});
  for (const ReplicaAnswer& answer : answers) {
    if (!answer.status.has_value()) {
      table.AddRow({answer.address, "-", "unreachable"});
      continue;
    }
    const ha::v1::ReplicaStatus& status = *answer.status;
    table.AddRow({answer.address, status.replica_id(), status.role(), absl::StrCat(status.epoch()),
                  absl::StrCat(status.applied().epoch(), "/", status.applied().index()),
                  Lag(status), InSync(answer, leader)});
  }
  table.Print(out);
  for (const ReplicaAnswer& answer : answers) {
    if (!answer.status.has_value()) out << answer.address << ": " << answer.error << "\n";
  }
  if (leader != nullptr && leader->status->in_sync().empty()) {
    out << "no follower is in sync yet: the leader waits for one before it acknowledges\n";
  }
  for (const ReplicaAnswer& answer : answers) {
    if (answer.status.has_value() && answer.status->may_have_lost_writes()) {
      out << "may have lost writes: a replica was promoted by force (" << answer.address
          << " says: " << answer.status->lost_writes() << ")\n";
      break;
    }
  }
}

std::vector<ReplicaAnswer> AskReplicas(SchedulerClient& client, absl::Duration timeout) {
  std::vector<ReplicaAnswer> answers;
  for (size_t i = 0; i < client.channels().size(); ++i) {
    ReplicaAnswer answer;
    std::shared_ptr<grpc::Channel> channel = client.channels().At(i, &answer.address);
    std::unique_ptr<grpc::ClientContext> context = client.CallContext();
    context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    ha::v1::ReplicaStatus status;
    const grpc::Status called =
        ha::v1::ReplicaAdmin::NewStub(channel)->GetReplicaStatus(context.get(), {}, &status);
    if (called.ok()) {
      answer.status = std::move(status);
    } else if (called.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      answer.error = "not a replicated scheduler (started without --ha-etcd-endpoints)";
    } else {
      answer.error = called.error_message();
    }
    answers.push_back(std::move(answer));
  }
  return answers;
}

int RunHaStatus(const HaStatusOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  std::vector<ReplicaAnswer> answers = AskReplicas(client, kAskTimeout);
  PrintHaStatus(answers, options.json, out);
  const auto answered = std::count_if(answers.begin(), answers.end(),
                                      [](const ReplicaAnswer& a) { return a.status.has_value(); });
  const auto leaders = std::count_if(answers.begin(), answers.end(), Leads);
  if (answered == 0) {
    err << "taskboard admin ha status: no replica answered; name every replica with "
           "--scheduler a:7233,b:7233,c:7233 and an admin --token\n";
    return 2;
  }
  if (leaders != 1) {
    err << "taskboard admin ha status: " << leaders
        << " replicas answered as the leader; during an election that is normal for a few "
           "seconds (--ha-lease-ttl), ask again\n";
    return 1;
  }
  return 0;
}

void AddHaCommand(CLI::App& admin, CommandSet& commands) {
  CLI::App* ha = admin.add_subcommand("ha", "Replicated schedulers (docs/high-availability.md)");
  ha->require_subcommand(1);
  auto options = std::make_shared<HaStatusOptions>();
  CLI::App* status = ha->add_subcommand(
      "status", "Ask each replica named by --scheduler for its role, term, progress and lag");
  status->add_flag("--json", options->json, "Print the replicas' answers as JSON");
  AddSchedulerOption(status, &options->scheduler);
  commands.Add(status, [options](std::ostream& out, std::ostream& err) {
    return RunHaStatus(*options, out, err);
  });
  AddHaFailoverCommands(*ha, commands);
}

}  // namespace taskboard::cli
