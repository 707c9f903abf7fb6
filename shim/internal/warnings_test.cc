#include "shim/internal/warnings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace verbsemu::shim::internal {
namespace {

class WarningsTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearRecordedWarningsForTesting(); }
  void TearDown() override { ClearRecordedWarningsForTesting(); }
};

size_t Recorded(WarningCode code) {
  const std::vector<RecordedWarning> all = RecordedWarnings();
  return static_cast<size_t>(
      std::count_if(all.begin(), all.end(),
                    [&](const RecordedWarning& w) { return w.code == code; }));
}

TEST_F(WarningsTest, FirstTimeIsTrueOncePerCode) {
  EXPECT_TRUE(FirstTime(WarningCode::kLinkRateUnknown));
  EXPECT_FALSE(FirstTime(WarningCode::kLinkRateUnknown));
  EXPECT_FALSE(FirstTime(WarningCode::kLinkRateUnknown));
  // Each code has its own: one given does not silence another.
  EXPECT_TRUE(FirstTime(WarningCode::kPadSendFailed));
  EXPECT_TRUE(FirstTime(WarningCode::kPadCreateFailed));
}

TEST_F(WarningsTest, WarnOnceRecordsTheFirstCauseOnly) {
  testing::internal::CaptureStderr();
  WarnOnce(WarningCode::kLinkRateUnknown, {"rxe0", "1", "no rate"});
  WarnOnce(WarningCode::kLinkRateUnknown, {"rxe1", "1", "no rate"});
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Recorded(WarningCode::kLinkRateUnknown), 1u);
  EXPECT_NE(printed.find("rxe0"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("rxe1"), std::string::npos) << printed;
  // Warn itself is not once: a warning with its own text each time.
  testing::internal::CaptureStderr();
  Warn(WarningCode::kPadSendFailed, {"a"});
  Warn(WarningCode::kPadSendFailed, {"b"});
  (void)testing::internal::GetCapturedStderr();
  EXPECT_EQ(Recorded(WarningCode::kPadSendFailed), 2u);
}

TEST_F(WarningsTest, ClearingForTestsGivesEveryWarningAgain) {
  for (const WarningInfo& w : kWarnings) EXPECT_TRUE(FirstTime(w.id));
  for (const WarningInfo& w : kWarnings) EXPECT_FALSE(FirstTime(w.id));
  ClearRecordedWarningsForTesting();
  for (const WarningInfo& w : kWarnings) EXPECT_TRUE(FirstTime(w.id));
}

}  // namespace
}  // namespace verbsemu::shim::internal
