#ifndef TASKBOARD_TESTS_CLI_RUN_FIXTURES_H_
#define TASKBOARD_TESTS_CLI_RUN_FIXTURES_H_

// Runs as the scheduler would report them, for the CLI's render, transition
// and command tests: a flow spec loaded from DSL text plus a snapshot written
// as text proto, with every timestamp relative to kT0.

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::cli::testing {

// 2023-11-14T22:13:20Z: the instant runs of the fixtures were created.
inline constexpr int64_t kT0 = 1'700'000'000;

inline absl::Time At(absl::Duration since_t0) { return absl::FromUnixSeconds(kT0) + since_t0; }

// A Run from text proto (timestamps written as `{ seconds: ... }`), with
// `flow_text` (DSL) loaded as its spec when given.
inline v1::Run MakeRun(absl::string_view run_text, absl::string_view flow_text = "") {
  v1::Run run;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(std::string(run_text), &run))
      << run_text;
  if (!flow_text.empty()) *run.mutable_spec() = taskboard::testing::LoadValidFlow(flow_text);
  return run;
}

// repo-digest's shape plus a lint phase beside the gate: four layers, a map,
// a gate, a reduce with a long edge.
inline constexpr absl::string_view kDigestFlow = R"(
name: repo-digest
phases:
  - id: discover
    agent: scout
    task: list files
  - id: summarize
    type: map
    dependsOn: [discover]
    over: "{steps.discover.json}"
    agent: summarizer
    task: "summarize {item.file}"
  - id: check
    type: gate
    dependsOn: [summarize]
    agent: reviewer
    task: "review {steps.summarize.output}"
  - id: lint
    dependsOn: [summarize]
    agent: linter
    optional: true
    task: lint
  - id: report
    type: reduce
    from: [summarize]
    dependsOn: [check]
    agent: writer
    final: true
    task: "write {steps.summarize.output}"
)";

// Two layer-0 phases, three in layer 1 (a map, a gate, an agent behind the
// first one), a final reduce with a long edge back to layer 0.
inline constexpr absl::string_view kAuditFlow = R"(
name: audit
phases:
  - id: discover
    agent: scout
    task: list files
  - id: precheck
    agent: linter
    task: precheck
  - id: files
    type: map
    dependsOn: [discover]
    over: "{steps.discover.json}"
    agent: auditor
    task: "audit {item}"
  - id: policy
    type: gate
    dependsOn: [discover]
    agent: reviewer
    task: "check {steps.discover.output}"
  - id: lint
    dependsOn: [precheck]
    agent: linter
    task: lint
  - id: report
    type: reduce
    from: [files]
    dependsOn: [policy, lint, discover]
    agent: writer
    task: "report {steps.files.output}"
)";

// audit at t0+65s: discover done, precheck failed, files mapping 12/40 with
// one failure, policy passed, lint skipped, report pending.
inline constexpr absl::string_view kAuditMidRun = R"pb(
  run_id: "r-7"
  flow_name: "audit"
  kind: FLOW_KIND_TASKFLOW
  status: RUN_STATUS_RUNNING
  created_at { seconds: 1700000000 }
  usage { input_tokens: 9400 output_tokens: 2310 cost_usd: 0.0132 }
  phases {
    phase_id: "discover"
    type: PHASE_TYPE_AGENT
    state: TASK_STATE_COMPLETED
    started_at { seconds: 1700000001 }
    finished_at { seconds: 1700000013 nanos: 300000000 }
    usage { input_tokens: 1200 output_tokens: 310 cost_usd: 0.0021 }
  }
  phases {
    phase_id: "precheck"
    type: PHASE_TYPE_AGENT
    state: TASK_STATE_FAILED
    started_at { seconds: 1700000001 }
    finished_at { seconds: 1700000003 }
  }
  phases {
    phase_id: "files"
    type: PHASE_TYPE_MAP
    state: TASK_STATE_RUNNING
    items_total: 40
    items_done: 12
    items_failed: 1
    started_at { seconds: 1700000014 }
    usage { input_tokens: 8200 output_tokens: 2000 cost_usd: 0.0111 }
  }
  phases {
    phase_id: "policy"
    type: PHASE_TYPE_GATE
    state: TASK_STATE_COMPLETED
    started_at { seconds: 1700000014 }
    finished_at { seconds: 1700000017 nanos: 100000000 }
    gate { pass: true reason: "no secrets found" }
  }
  phases {
    phase_id: "lint"
    type: PHASE_TYPE_AGENT
    state: TASK_STATE_SKIPPED
    skip_reason: "upstream phase 'precheck' failed"
  }
  tasks {
    task_id: "precheck"
    phase_id: "precheck"
    agent: "linter"
    state: TASK_STATE_FAILED
    error: "exit status 3:\n  config not found"
  }
)pb";

// audit at t0+5s, earlier than kAuditMidRun: discover and precheck running.
inline constexpr absl::string_view kAuditStarting = R"pb(
  run_id: "r-7"
  flow_name: "audit"
  kind: FLOW_KIND_TASKFLOW
  status: RUN_STATUS_RUNNING
  created_at { seconds: 1700000000 }
  phases {
    phase_id: "discover"
    type: PHASE_TYPE_AGENT
    state: TASK_STATE_RUNNING
    started_at { seconds: 1700000001 }
  }
  phases {
    phase_id: "precheck"
    type: PHASE_TYPE_AGENT
    state: TASK_STATE_RUNNING
    started_at { seconds: 1700000001 }
  }
  phases { phase_id: "files" type: PHASE_TYPE_MAP state: TASK_STATE_PENDING }
)pb";

}  // namespace taskboard::cli::testing

#endif  // TASKBOARD_TESTS_CLI_RUN_FIXTURES_H_
