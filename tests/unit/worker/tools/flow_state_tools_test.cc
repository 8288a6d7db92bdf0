// The FlowState built-ins (worker/tools/flow_state_tools.cc) over a fake
// RunStateLink: what they ask the scheduler, how they decode its answers and
// values, their errors, and flow_state's bounded conversation.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/flow_state.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

class FakeLink : public RunStateLink {
 public:
  absl::StatusOr<v1::RunStateResponse> Call(const v1::RunStateRequest& request) override {
    requests.push_back(request);
    if (!error.ok()) return error;
    return response;
  }
  std::vector<v1::RunStateRequest> requests;
  v1::RunStateResponse response;
  absl::Status error;
};

class FlowStateToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (std::unique_ptr<Tool>& tool : FlowStateTools(BuiltinToolOptions{})) {
      tools_[tool->name()] = std::move(tool);
    }
    state_.run_id = "child";
    state_.task_id = "t1";
    state_.root_run_id = "root";
    state_.parent_run_id = "root";
    state_.lease_id = "lease-1";
    state_.agent = "writer";
    state_.attempt = 2;
    state_.storage = &link_;
    state_.conversation = &conversation_;
  }

  absl::StatusOr<Json> Call(const std::string& tool, const std::string& args,
                            const FlowState* state) {
    absl::StatusOr<std::string> out =
        tools_.at(tool)->Execute(args, ToolContext{{}, &cancel_, state});
    if (!out.ok()) return out.status();
    return ParseJson(*out);
  }
  absl::StatusOr<Json> Call(const std::string& tool, const std::string& args) {
    return Call(tool, args, &state_);
  }

  std::map<std::string, std::unique_ptr<Tool>> tools_;
  FakeLink link_;
  ConversationLog conversation_;
  FlowState state_;
  CancelToken cancel_;
};

TEST_F(FlowStateToolsTest, NoneIsCacheable) {
  EXPECT_EQ(tools_.size(), 5u);
  for (const auto& [name, tool] : tools_) EXPECT_FALSE(tool->declaration().cacheable()) << name;
}

TEST_F(FlowStateToolsTest, Set_SendsTheLeaseAndText_AnswersTheUsage) {
  link_.response.set_run_keys(3);
  link_.response.set_run_bytes(40);
  absl::StatusOr<Json> out = Call("state_set", R"({"key": "k", "value": "v"})");
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ((*out)["key"], "k");
  EXPECT_EQ((*out)["space"], "storage");
  EXPECT_EQ((*out)["run_keys"], 3);
  EXPECT_EQ((*out)["run_bytes"], 40);
  ASSERT_EQ(link_.requests.size(), 1u);
  const v1::RunStateRequest& sent = link_.requests[0];
  EXPECT_EQ(sent.op(), v1::RunStateRequest::OP_SET);
  EXPECT_EQ(sent.task_id(), "t1");
  EXPECT_EQ(sent.lease_id(), "lease-1");
  EXPECT_EQ(sent.space(), "storage");
  EXPECT_EQ(sent.key(), "k");
  EXPECT_EQ(sent.value(), "v");
}

TEST_F(FlowStateToolsTest, StorageValueNotText_RefusedBeforeAsking) {
  EXPECT_THAT(Call("state_set", R"({"key": "k", "value": {"a": 1}})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("use space \"context\"")));
  EXPECT_TRUE(link_.requests.empty());
}

TEST_F(FlowStateToolsTest, ContextValues_GoAsJsonText_ComeBackAsJson) {
  ASSERT_THAT(
      Call("state_set", R"({"key": "plan", "value": {"steps": [1, 2]}, "space": "context"})"),
      IsOk());
  EXPECT_EQ(link_.requests[0].value(), R"({"steps":[1,2]})");
  link_.response.set_found(true);
  link_.response.set_value(R"({"steps":[1,2]})");
  absl::StatusOr<Json> got = Call("state_get", R"({"key": "plan", "space": "context"})");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ((*got)["value"], Json::parse(R"({"steps":[1,2]})"));
  (*link_.response.mutable_entries())["plan"] = R"({"steps":[1,2]})";
  absl::StatusOr<Json> listed = Call("state_list", R"({"space": "context"})");
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ((*listed)["entries"]["plan"]["steps"][1], 2);
}

TEST_F(FlowStateToolsTest, Get_Unset_FoundFalseValueNull) {
  absl::StatusOr<Json> got = Call("state_get", R"({"key": "nope"})");
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ((*got)["found"], false);
  EXPECT_TRUE((*got)["value"].is_null());
}

TEST_F(FlowStateToolsTest, SchedulerRefusal_IsTheToolsErrorAsIs) {
  link_.error =
      absl::ResourceExhaustedError("the value of 'k' is 99 bytes (--run-state-max-value-bytes)");
  EXPECT_THAT(
      Call("state_set", R"({"key": "k", "value": "v"})"),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--run-state-max-value-bytes")));
}

TEST_F(FlowStateToolsTest, OutsideATask_OrWithoutStorage_FailsSaying) {
  EXPECT_THAT(Call("state_get", R"({"key": "k"})", nullptr),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("only inside a task")));
  FlowState no_storage = state_;
  no_storage.storage = nullptr;
  EXPECT_THAT(Call("state_get", R"({"key": "k"})", &no_storage),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no scheduler")));
  EXPECT_THAT(Call("state_get", R"({"key": "k", "typo": 1})"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(FlowStateToolsTest, FlowState_Identity_AndTheConversationOnRequest) {
  std::vector<v1::ChatMessage> messages(2);
  messages[0].set_role("user");
  messages[0].set_content("first question");
  messages[1].set_role("assistant");
  messages[1].add_tool_calls()->set_name("state_get");
  conversation_.Sync(messages, 1);
  absl::StatusOr<Json> plain = Call("flow_state", "{}");
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(*plain, (Json{{"run_id", "child"},
                          {"task_id", "t1"},
                          {"root_run_id", "root"},
                          {"parent_run_id", "root"},
                          {"is_child", true},
                          {"attempt", 2},
                          {"agent", "writer"},
                          {"turn", 1}}));
  absl::StatusOr<Json> with = Call("flow_state", R"({"conversation": true, "max_messages": 1})");
  ASSERT_THAT(with, IsOk());
  ASSERT_EQ((*with)["conversation"].size(), 1u);
  EXPECT_EQ((*with)["conversation"][0]["tool_calls"][0]["name"], "state_get");
  EXPECT_EQ((*with)["conversation_truncated"], true);
  EXPECT_THAT(Call("flow_state", R"({"conversation": true, "max_messages": 0})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 to 200")));
}

TEST(ConversationLogTest, Tail_KeepsTheNewestThatFitTheBytes) {
  ConversationLog log;
  std::vector<v1::ChatMessage> messages(10);
  for (int i = 0; i < 10; ++i) {
    messages[i].set_role("user");
    messages[i].set_content(absl::StrCat("message-", i, "-", std::string(100, 'x')));
  }
  log.Sync(messages, 3);
  // Syncing the same vector again adds nothing.
  log.Sync(messages, 4);
  EXPECT_EQ(log.turn(), 4);
  bool truncated = false;
  Json tail = log.Tail(200, 400, &truncated);
  EXPECT_TRUE(truncated);
  ASSERT_GE(tail.size(), 1u);
  EXPECT_LE(DumpJson(tail).size(), 400u);
  EXPECT_THAT(tail.back()["content"].get<std::string>(), HasSubstr("message-9"));
  Json all = log.Tail(200, 1 << 20, &truncated);
  EXPECT_FALSE(truncated);
  EXPECT_EQ(all.size(), 10u);
}

TEST(FlowStateTest, Environment_NamesTheTaskAndCarriesTheSocket) {
  FlowState state;
  state.run_id = "r";
  state.task_id = "t";
  state.root_run_id = "r";
  state.tool_environment = {{"TASKBOARD_TOOL_SOCKET", "/tmp/s"}, {"TASKBOARD_TASK_TOKEN", "tok"}};
  std::map<std::string, std::string> env;
  for (auto& [name, value] : state.Environment()) env[name] = value;
  EXPECT_EQ(env["TASKBOARD_ROOT_RUN_ID"], "r");
  EXPECT_EQ(env["TASKBOARD_PARENT_RUN_ID"], "");
  EXPECT_EQ(env["TASKBOARD_TURN"], "0");
  EXPECT_EQ(env["TASKBOARD_TASK_TOKEN"], "tok");
}

}  // namespace
}  // namespace taskboard::worker
