#ifndef TASKBOARD_SCHEDULER_FLOW_JSON_WRITE_H_
#define TASKBOARD_SCHEDULER_FLOW_JSON_WRITE_H_

// How the flow encoder writes a field: left out when it holds its default, as
// the decoder defaults it. Shared by flow_encoder.cc and every kind's encoder
// (kinds/*_kind.cc) so a spec encodes the same wherever its block sits.

#include <cstdint>
#include <string>

#include "common/json.h"

namespace taskboard::flow {

template <typename List>
Json Strings(const List& list) {
  Json out = Json::array();
  for (const std::string& value : list) out.push_back(value);
  return out;
}

inline void SetString(Json& obj, const char* key, const std::string& value) {
  if (!value.empty()) obj[key] = value;
}

inline void SetInt(Json& obj, const char* key, int64_t value) {
  if (value != 0) obj[key] = value;
}

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_JSON_WRITE_H_
