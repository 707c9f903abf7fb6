// The C boundary: every entry point the application or a provider reaches
// (shim/exports.cc, the patched ops) is noexcept, and whatever the shim's
// own part of it throws (out of memory, a thread it cannot start) is caught
// here, said in one line, and leaves the call to the provider: that object
// (or the post) is then not emulated, and the application goes on.
#ifndef VERBSEMU_SHIM_INTERNAL_BOUNDARY_H_
#define VERBSEMU_SHIM_INTERNAL_BOUNDARY_H_

#include <exception>

namespace verbsemu::shim::internal {

// The one line for an exception caught at the boundary (the first per
// process; later ones are seen only by their effect).
inline constexpr const char* kNotEmulated =
    "that object is not emulated (the call goes to the provider)";
void BoundaryFault(const char* where, const char* what,
                   const char* effect = kNotEmulated) noexcept;

// Runs `step`, the shim's own part of the entry point `where`; true unless
// it threw (`effect`: what the caller then does).
template <class F>
bool ShimStep(const char* where, F&& step,
              const char* effect = kNotEmulated) noexcept {
  try {
    step();
    return true;
  } catch (const std::exception& ex) {
    BoundaryFault(where, ex.what(), effect);
  } catch (...) {
    BoundaryFault(where, "unknown exception", effect);
  }
  return false;
}

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_BOUNDARY_H_
