#include "common/canonical_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace taskboard {
namespace {

void Append(const Json& value, std::string& out) {
  switch (value.type()) {
    case Json::value_t::object: {
      std::vector<std::pair<const std::string*, const Json*>> members;
      members.reserve(value.size());
      for (const auto& [key, member] : value.items()) members.emplace_back(&key, &member);
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return *a.first < *b.first; });
      out.push_back('{');
      for (size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out.push_back(',');
        out += Json(*members[i].first).dump(-1, ' ', false, Json::error_handler_t::replace);
        out.push_back(':');
        Append(*members[i].second, out);
      }
      out.push_back('}');
      return;
    }
    case Json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const Json& element : value) {
        if (!first) out.push_back(',');
        first = false;
        Append(element, out);
      }
      out.push_back(']');
      return;
    }
    case Json::value_t::number_float: {
      const double d = value.get<double>();
      // 2^63 bounds the range where an integral double converts exactly.
      if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2233720368547758e18) {
        out += std::to_string(static_cast<int64_t>(d));
        return;
      }
      out += value.dump();
      return;
    }
    default:
      out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

}  // namespace

void AppendCanonicalJsonString(absl::string_view text, std::string& out) {
  out += Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string CanonicalJson(const Json& value) {
  std::string out;
  Append(value, out);
  return out;
}

}  // namespace taskboard
