// Head sampling: the ratio decision read off the trace id (the same in every
// process), its monotonicity in the ratio, and parent-based inheritance of
// the sampled flag through the tracer.

#include "common/otel/sampler.h"

#include <vector>

#include "common/otel/traceparent.h"
#include "common/otel/tracer.h"
#include "gtest/gtest.h"

namespace taskboard::otel {
namespace {

TraceId WithRandomness(uint64_t randomness) {
  TraceId id;
  id.bytes[0] = 0xab;  // outside the 56 bits: must not matter
  for (int i = 15; i >= 9; --i) {
    id.bytes[i] = static_cast<uint8_t>(randomness & 0xff);
    randomness >>= 8;
  }
  return id;
}

constexpr uint64_t kTwoTo56 = uint64_t{1} << 56;

class RecordingSink : public SpanSink {
 public:
  void OnEnd(SpanData span) override { spans.push_back(std::move(span)); }
  std::vector<SpanData> spans;
};

TEST(Sampler, TraceIdRandomness_IsTheRightmost56Bits) {
  EXPECT_EQ(TraceIdRandomness(WithRandomness(0x00123456789abcdeULL)), 0x00123456789abcdeULL);
  TraceId id;
  id.bytes[8] = 0xff;  // the byte left of them
  EXPECT_EQ(TraceIdRandomness(id), 0u);
}

TEST(Sampler, Ratio_SamplesRandomnessAtOrAboveTheThreshold) {
  const Sampler half({.parent_based = false, .ratio = 0.5});
  EXPECT_FALSE(half.SampledByRatio(WithRandomness(0)));
  EXPECT_FALSE(half.SampledByRatio(WithRandomness(kTwoTo56 / 2 - 1)));
  EXPECT_TRUE(half.SampledByRatio(WithRandomness(kTwoTo56 / 2)));
  EXPECT_TRUE(half.SampledByRatio(WithRandomness(kTwoTo56 - 1)));
}

TEST(Sampler, RatioOneAndZero_AreAlwaysOnAndOff) {
  const Sampler on({.parent_based = false, .ratio = 1.0});
  const Sampler off({.parent_based = false, .ratio = 0.0});
  for (uint64_t r : {uint64_t{0}, uint64_t{1}, kTwoTo56 / 3, kTwoTo56 - 1}) {
    EXPECT_TRUE(on.SampledByRatio(WithRandomness(r)));
    EXPECT_FALSE(off.SampledByRatio(WithRandomness(r)));
  }
}

TEST(Sampler, OutOfRangeRatios_AreClamped) {
  EXPECT_EQ(Sampler({.ratio = 7}).config().ratio, 1.0);
  EXPECT_EQ(Sampler({.ratio = -1}).config().ratio, 0.0);
  EXPECT_FALSE(Sampler({.parent_based = false, .ratio = -1}).SampledByRatio(NewTraceId()));
}

TEST(Sampler, Decision_IsTheSameForATraceIdWhereverItIsMade) {
  // Two samplers configured alike (a scheduler and a worker) agree on every
  // trace id, without being told each other's decisions.
  const Sampler scheduler({.parent_based = true, .ratio = 0.3});
  const Sampler worker({.parent_based = true, .ratio = 0.3});
  for (int i = 0; i < 10'000; ++i) {
    const TraceId id = NewTraceId();
    ASSERT_EQ(scheduler.ShouldSample(id, nullptr), worker.ShouldSample(id, nullptr));
  }
}

TEST(Sampler, TraceSampledAtARatio_IsSampledAtAnyHigherRatio) {
  const Sampler low({.parent_based = false, .ratio = 0.1});
  const Sampler high({.parent_based = false, .ratio = 0.4});
  for (int i = 0; i < 10'000; ++i) {
    const TraceId id = NewTraceId();
    if (low.SampledByRatio(id)) ASSERT_TRUE(high.SampledByRatio(id));
  }
}

TEST(Sampler, Ratio_SamplesAboutThatShareOfRandomTraces) {
  const Sampler quarter({.parent_based = false, .ratio = 0.25});
  int sampled = 0;
  for (int i = 0; i < 20'000; ++i) sampled += quarter.SampledByRatio(NewTraceId()) ? 1 : 0;
  // 5,000 expected; the binomial's standard deviation is about 61.
  EXPECT_NEAR(sampled, 5'000, 400);
}

TEST(Sampler, ParentBased_FollowsAValidParentsFlagWhateverTheRatio) {
  SpanContext parent = *ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  const Sampler never({.parent_based = true, .ratio = 0.0});
  const Sampler always({.parent_based = true, .ratio = 1.0});
  EXPECT_TRUE(never.ShouldSample(parent.trace_id, &parent));
  parent.trace_flags = 0;
  EXPECT_FALSE(always.ShouldSample(parent.trace_id, &parent));
}

TEST(Sampler, ParentBased_UsesTheRatioForRootsAndInvalidParents) {
  const Sampler never({.parent_based = true, .ratio = 0.0});
  SpanContext invalid;
  invalid.trace_flags = kSampledFlag;
  EXPECT_FALSE(never.ShouldSample(NewTraceId(), nullptr));
  EXPECT_FALSE(never.ShouldSample(NewTraceId(), &invalid));
}

TEST(Sampler, NotParentBased_IgnoresTheParentsFlag) {
  const SpanContext parent =
      *ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  const Sampler never({.parent_based = false, .ratio = 0.0});
  EXPECT_FALSE(never.ShouldSample(parent.trace_id, &parent));
}

TEST(Tracer, ChildOfSampledRemoteParent_IsRecordedInItsTrace) {
  RecordingSink sink;
  const Tracer tracer(Sampler({.parent_based = true, .ratio = 0.0}), &sink);
  const SpanContext parent =
      *ExtractTraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v");
  Span span = tracer.StartSpan("task", &parent);
  ASSERT_TRUE(span.recording());
  EXPECT_EQ(span.context().trace_id, parent.trace_id);
  EXPECT_NE(span.context().span_id, parent.span_id);
  EXPECT_TRUE(span.context().sampled());
  EXPECT_FALSE(span.context().remote);
  EXPECT_EQ(span.context().trace_state, "k=v");
  span.End();
  ASSERT_EQ(sink.spans.size(), 1u);
  EXPECT_EQ(sink.spans[0].parent_span_id, parent.span_id);
  EXPECT_TRUE(sink.spans[0].parent_remote);
}

TEST(Tracer, ChildOfUnsampledParent_IsNotRecordedButCarriesTheTrace) {
  RecordingSink sink;
  const Tracer tracer(Sampler({.parent_based = true, .ratio = 1.0}), &sink);
  const SpanContext parent =
      *ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  Span span = tracer.StartSpan("task", &parent);
  EXPECT_FALSE(span.recording());
  EXPECT_EQ(span.context().trace_id, parent.trace_id);
  EXPECT_TRUE(span.context().span_id.IsValid());
  EXPECT_FALSE(span.context().sampled());
  // Its own children inherit the decision.
  Span grandchild = tracer.StartSpan("step", &span.context());
  EXPECT_FALSE(grandchild.recording());
  span.End();
  grandchild.End();
  EXPECT_TRUE(sink.spans.empty());
}

TEST(Tracer, SampledRootsChildren_AreAllSampled) {
  RecordingSink sink;
  const Tracer tracer(Sampler({.parent_based = true, .ratio = 0.5}), &sink);
  int roots_sampled = 0;
  for (int i = 0; i < 200; ++i) {
    Span root = tracer.StartSpan("run");
    Span child = tracer.StartSpan("task", &root.context());
    ASSERT_EQ(child.recording(), root.recording());
    ASSERT_EQ(child.context().trace_id, root.context().trace_id);
    roots_sampled += root.recording() ? 1 : 0;
  }
  EXPECT_GT(roots_sampled, 0);
  EXPECT_LT(roots_sampled, 200);
}

TEST(Tracer, WithoutSink_PassesTheParentsContextThrough) {
  const Tracer tracer(Sampler(), nullptr);
  const SpanContext parent =
      *ExtractTraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v");
  Span span = tracer.StartSpan("task", &parent);
  EXPECT_FALSE(span.recording());
  EXPECT_EQ(FormatTraceparent(span.context()), FormatTraceparent(parent));
  EXPECT_EQ(span.context().trace_state, "k=v");
  EXPECT_FALSE(tracer.StartSpan("root").context().IsValid());
}

}  // namespace
}  // namespace taskboard::otel
