#ifndef TASKBOARD_TESTS_TESTING_METRICS_PORT_H_
#define TASKBOARD_TESTS_TESTING_METRICS_PORT_H_

// A scheduler's metrics port as the HA tests read it: GET /readyz, /healthz
// or /metrics on 127.0.0.1, and one sample of the exposition.

#include <optional>
#include <string>

#include "httplib.h"
#include "tests/testing/prometheus_text.h"

namespace taskboard::testing {

// The HTTP status of GET `path` on 127.0.0.1:`port` (0: no answer), and the
// body in `body`.
inline int GetOnMetricsPort(int port, const std::string& path, std::string* body = nullptr) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(5, 0);
  httplib::Result result = client.Get(path);
  if (!result) return 0;
  if (body != nullptr) *body = result->body;
  return result->status;
}

// One series' value in the port's /metrics; nullopt when it cannot be read.
inline std::optional<double> SampleOnMetricsPort(int port, const std::string& series) {
  std::string metrics;
  if (GetOnMetricsPort(port, "/metrics", &metrics) != 200) return std::nullopt;
  return SampleValue(metrics, series);
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_METRICS_PORT_H_
