#include "scheduler/cache/cache_key.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::cache {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string Key(absl::string_view args_json, const std::vector<std::string>& key_fields = {},
                absl::string_view tenant = "acme", v1::CacheScope scope = v1::CACHE_SCOPE_RUN,
                absl::string_view scope_id = "run-1", absl::string_view tool = "read_file") {
  absl::StatusOr<CacheKey> key = MakeCacheKey(tenant, scope, scope_id, tool, args_json, key_fields);
  EXPECT_THAT(key, IsOk());
  return key.ok() ? key->key : "";
}

TEST(CacheKey, ArgsKeyOrder_DoesNotChangeKey) {
  EXPECT_EQ(Key(R"({"path":"a","limit":3,"opts":{"x":1,"y":2}})"),
            Key(R"({"opts":{"y":2,"x":1},"limit":3,"path":"a"})"));
}

TEST(CacheKey, ArgsWhitespaceAndNumberSpelling_DoNotChangeKey) {
  EXPECT_EQ(Key(R"({"path":"a","limit":3})"), Key("{ \"path\" : \"a\",\n  \"limit\" : 3.0 }"));
}

TEST(CacheKey, DifferentArgValues_DifferentKeys) {
  EXPECT_NE(Key(R"({"path":"a"})"), Key(R"({"path":"b"})"));
  EXPECT_NE(Key(R"({"path":"a"})"), Key(R"({"path":"a","extra":1})"));
}

TEST(CacheKey, KeyFields_OtherFieldsIgnored) {
  EXPECT_EQ(Key(R"({"path":"a","request_id":"r1"})", {"path"}),
            Key(R"({"request_id":"r2","path":"a"})", {"path"}));
  EXPECT_NE(Key(R"({"path":"a","request_id":"r1"})", {"path"}),
            Key(R"({"path":"b","request_id":"r1"})", {"path"}));
}

TEST(CacheKey, KeyFields_MissingFieldIsAbsentNotNull) {
  // Two calls that both omit a key field match; passing null is a different call.
  EXPECT_EQ(Key(R"({"path":"a"})", {"path", "encoding"}),
            Key(R"({"path":"a","other":1})", {"path", "encoding"}));
  EXPECT_NE(Key(R"({"path":"a"})", {"path", "encoding"}),
            Key(R"({"path":"a","encoding":null})", {"path", "encoding"}));
}

TEST(CacheKey, DifferentToolScopeScopeIdOrTenant_DifferentKeys) {
  const std::string base = Key("{}");
  EXPECT_NE(base, Key("{}", {}, "other-tenant"));
  EXPECT_NE(base, Key("{}", {}, "acme", v1::CACHE_SCOPE_REQUEST));
  EXPECT_NE(base, Key("{}", {}, "acme", v1::CACHE_SCOPE_RUN, "run-2"));
  EXPECT_NE(base, Key("{}", {}, "acme", v1::CACHE_SCOPE_RUN, "run-1", "list_dir"));
}

TEST(CacheKey, UnspecifiedScope_IsRunScope) {
  EXPECT_EQ(Key("{}", {}, "acme", v1::CACHE_SCOPE_UNSPECIFIED), Key("{}"));
}

TEST(CacheKey, ComponentsAreLengthPrefixed_NoForgedCollisions) {
  // Without length prefixes "a/b" + "c" and "a" + "b/c" could meet.
  EXPECT_NE(Key("{}", {}, "a", v1::CACHE_SCOPE_RUN, "b", "c"),
            Key("{}", {}, "a", v1::CACHE_SCOPE_RUN, "bc", ""));
  EXPECT_NE(Key("{}", {}, "ab", v1::CACHE_SCOPE_RUN, "", "c"),
            Key("{}", {}, "a", v1::CACHE_SCOPE_RUN, "b", "c"));
}

TEST(CacheKey, ScopePrefix_PrefixesExactlyItsScopeInstance) {
  absl::StatusOr<CacheKey> key =
      MakeCacheKey("acme", v1::CACHE_SCOPE_RUN, "run-1", "read_file", "{}", {});
  ASSERT_THAT(key, IsOk());
  EXPECT_EQ(key->scope_prefix, ScopePrefix("acme", v1::CACHE_SCOPE_RUN, "run-1"));
  EXPECT_TRUE(key->key.starts_with(key->scope_prefix));
  // Run "run-1" must not own the entries of run "run-10".
  EXPECT_FALSE(Key("{}", {}, "acme", v1::CACHE_SCOPE_RUN, "run-10")
                   .starts_with(ScopePrefix("acme", v1::CACHE_SCOPE_RUN, "run-1")));
}

TEST(CacheKey, ArgsNotAnObject_InvalidArgumentSayingWhatArrived) {
  EXPECT_THAT(MakeCacheKey("acme", v1::CACHE_SCOPE_RUN, "r", "read_file", "[1,2]", {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("tool 'read_file'"), HasSubstr("must be a JSON object"),
                             HasSubstr("got an array"))));
  EXPECT_THAT(ArgsDigest("\"path\"", {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got a string")));
  EXPECT_THAT(ArgsDigest("{not json", {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got invalid JSON")));
}

TEST(CacheKey, ArgsDigest_IsHexSha256OfCanonicalArgs) {
  // sha256 of "{}" (the canonical empty object).
  EXPECT_EQ(*ArgsDigest(" { } ", {}),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
}

}  // namespace
}  // namespace taskboard::cache
