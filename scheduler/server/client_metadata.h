#ifndef TASKBOARD_SCHEDULER_SERVER_CLIENT_METADATA_H_
#define TASKBOARD_SCHEDULER_SERVER_CLIENT_METADATA_H_

// One header a caller sent with its call (`authorization`, `traceparent`,
// the HTTP API's peer), as a view into the call's metadata; "" when absent.

#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"

namespace taskboard::server {

inline absl::string_view ClientMetadata(const grpc::ServerContextBase& context,
                                        absl::string_view key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
  return it == metadata.end() ? absl::string_view()
                              : absl::string_view(it->second.data(), it->second.size());
}

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_CLIENT_METADATA_H_
