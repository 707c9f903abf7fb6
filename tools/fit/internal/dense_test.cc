#include "tools/fit/internal/dense.h"

#include <gtest/gtest.h>

#include <cmath>

namespace verbsemu::fit::internal {
namespace {

TEST(DenseTest, SolvesSymmetricPositiveDefinite) {
  Matrix a(3, 3);
  const double v[3][3] = {{4, 1, 2}, {1, 5, 3}, {2, 3, 6}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a(i, j) = v[i][j];
  // x = (1, -2, 3) -> b = A x.
  const std::vector<double> b = {4 - 2 + 6, 1 - 10 + 9, 2 - 6 + 18};
  auto x = Solve(a, b);
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 1, 1e-12);
  EXPECT_NEAR((*x)[1], -2, 1e-12);
  EXPECT_NEAR((*x)[2], 3, 1e-12);
}

TEST(DenseTest, SolvesNonSymmetricWithPivoting) {
  Matrix a(2, 2);
  a(0, 0) = 0;  // Needs a row swap.
  a(0, 1) = 2;
  a(1, 0) = 3;
  a(1, 1) = 1;
  auto x = Solve(a, {4, 5});  // x = (1, 2).
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 1, 1e-12);
  EXPECT_NEAR((*x)[1], 2, 1e-12);
}

TEST(DenseTest, RejectsSingular) {
  Matrix a(2, 2);
  a(0, 0) = 1;
  a(0, 1) = 2;
  a(1, 0) = 2;
  a(1, 1) = 4;
  EXPECT_FALSE(Solve(a, {1, 2}).has_value());
  EXPECT_FALSE(Solve(Matrix(2, 3), {1, 2}).has_value());
}

TEST(DenseTest, LinearLeastSquaresFitsLine) {
  Matrix basis(5, 2);
  std::vector<double> y(5);
  for (int i = 0; i < 5; ++i) {
    basis(i, 0) = 1;
    basis(i, 1) = i;
    y[i] = 3 + 0.5 * i + ((i % 2) ? 0.01 : -0.01);
  }
  auto c = LinearLeastSquares(basis, y);
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR((*c)[0], 3, 0.02);
  EXPECT_NEAR((*c)[1], 0.5, 0.01);
}

}  // namespace
}  // namespace verbsemu::fit::internal
