#ifndef TASKBOARD_SCHEDULER_FLOW_PROTO_VALUE_H_
#define TASKBOARD_SCHEDULER_FLOW_PROTO_VALUE_H_

// Conversions between Json and google.protobuf.Value (how arg defaults are
// carried in FlowSpec). Both go through JSON text, which is exact for every
// JSON value protobuf can hold.

#include "common/json.h"
#include "google/protobuf/struct.pb.h"

namespace taskboard::flow {

google::protobuf::Value JsonToProtoValue(const Json& value);
Json ProtoValueToJson(const google::protobuf::Value& value);
// A Struct (a run's args) as the JSON object it holds.
Json ProtoStructToJson(const google::protobuf::Struct& value);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_PROTO_VALUE_H_
