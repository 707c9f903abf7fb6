#include "stats/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace verbsemu::stats {
namespace {

TEST(T975Test, TablesAndLimit) {
  // Standard tables' t_{0.975}.
  EXPECT_NEAR(T975(1), 12.706, 1e-3);
  EXPECT_NEAR(T975(2), 4.303, 1e-3);
  EXPECT_NEAR(T975(10), 2.228, 1e-3);
  EXPECT_NEAR(T975(30), 2.042, 1e-3);
  EXPECT_NEAR(T975(120), 1.980, 1e-3);
  EXPECT_NEAR(T975(1e6), 1.959964, 1e-5);
  EXPECT_TRUE(std::isinf(T975(0)));
  EXPECT_TRUE(std::isinf(T975(-1)));
  // Fractional degrees of freedom (Welch) fall between their neighbours.
  EXPECT_LT(T975(10.5), T975(10));
  EXPECT_GT(T975(10.5), T975(11));
}

TEST(MedianTest, OddEvenAndEmpty) {
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({7}), 7);
  EXPECT_TRUE(std::isnan(Median({})));
}

TEST(QuantileTest, InterpolatesBetweenOrderStatistics) {
  const std::vector<double> v = {10, 20, 30, 40, 50};
  EXPECT_EQ(Quantile(v, 0), 10);
  EXPECT_EQ(Quantile(v, 1), 50);
  EXPECT_EQ(Quantile(v, 0.5), 30);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.1), 14);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.975), 49);
  EXPECT_TRUE(std::isnan(Quantile({}, 0.5)));
}

}  // namespace
}  // namespace verbsemu::stats
