// Small dense linear algebra for the Levenberg-Marquardt solver: a row-major
// matrix and a linear solve (Cholesky with a pivoted Gaussian-elimination
// fallback). Private to //tools/fit.
#ifndef VERBSEMU_TOOLS_FIT_INTERNAL_DENSE_H_
#define VERBSEMU_TOOLS_FIT_INTERNAL_DENSE_H_

#include <cstddef>
#include <optional>
#include <vector>

namespace verbsemu::fit::internal {

// Row-major dense matrix.
class Matrix {
 public:
  Matrix() = default;
  Matrix(std::size_t rows, std::size_t cols)
      : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {}

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  double& operator()(std::size_t r, std::size_t c) {
    return data_[r * cols_ + c];
  }
  double operator()(std::size_t r, std::size_t c) const {
    return data_[r * cols_ + c];
  }

 private:
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  std::vector<double> data_;
};

// Solves A x = b for square A. Tries a Cholesky factorisation first (A is
// usually symmetric positive definite here) and falls back to Gaussian
// elimination with partial pivoting. Returns nullopt if A is singular to
// working precision or the result is not finite.
std::optional<std::vector<double>> Solve(const Matrix& a,
                                         const std::vector<double>& b);

// Linear least squares min ||B c - y||^2 via the normal equations with a
// tiny relative ridge. B is n x k (n >= k). Returns nullopt if ill-posed.
std::optional<std::vector<double>> LinearLeastSquares(
    const Matrix& basis, const std::vector<double>& y);

}  // namespace verbsemu::fit::internal

#endif  // VERBSEMU_TOOLS_FIT_INTERNAL_DENSE_H_
