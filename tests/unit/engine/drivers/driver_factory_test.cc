#include "scheduler/engine/drivers/driver_factory.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::engine {
namespace {

// A kind added to the FlowSpec.kind oneof without its flow file
// (flow/kinds/) or its driver fails here, not at a user's submit.
TEST(DriverFactory, EveryKindOneofField_HasAFlowKindAndADriver) {
  const google::protobuf::OneofDescriptor* oneof =
      v1::FlowSpec::descriptor()->FindOneofByName("kind");
  ASSERT_NE(oneof, nullptr);
  ASSERT_GT(oneof->field_count(), 0);
  for (int i = 0; i < oneof->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = oneof->field(i);
    v1::FlowSpec spec;
    spec.GetReflection()->MutableMessage(&spec, field);
    ASSERT_EQ(spec.kind_case(), static_cast<v1::FlowSpec::KindCase>(field->number()));
    const flow::FlowKindInfo* kind = flow::FindFlowKind(spec);
    EXPECT_NE(kind, nullptr) << "FlowSpec." << field->name()
                             << " has no FlowKindInfo in scheduler/flow/kinds/flow_kinds.cc";
    EXPECT_NE(DriverFactoryFor(spec.kind_case()), nullptr)
        << "FlowSpec." << field->name()
        << " has no driver in scheduler/engine/drivers/driver_factory.cc";
    absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(spec, RunLimits{});
    ASSERT_TRUE(driver.ok()) << field->name() << ": " << driver.status();
    EXPECT_NE(*driver, nullptr) << field->name();
  }
}

TEST(DriverFactory, NoKind_IsUnimplementedAndSaysHowToCheck) {
  v1::FlowSpec spec;
  spec.set_name("empty");
  EXPECT_EQ(DriverFactoryFor(v1::FlowSpec::KIND_NOT_SET), nullptr);
  absl::StatusOr<std::unique_ptr<Driver>> driver = MakeDriver(spec, RunLimits{});
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(driver.status().message(),
            "flow 'empty' has no kind this scheduler can run (); validate it with "
            "`taskboard validate`");
}

}  // namespace
}  // namespace taskboard::engine
