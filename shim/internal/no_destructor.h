// A process-lifetime object that is never destroyed, so data-path calls from
// threads still running during exit never see a destroyed engine.
#ifndef VERBSEMU_SHIM_INTERNAL_NO_DESTRUCTOR_H_
#define VERBSEMU_SHIM_INTERNAL_NO_DESTRUCTOR_H_

#include <memory>
#include <new>

namespace verbsemu::shim::internal {

template <class T>
class NoDestructor {
 public:
  NoDestructor() { std::construct_at(reinterpret_cast<T*>(storage_)); }
  T* get() { return std::launder(reinterpret_cast<T*>(storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace verbsemu::shim::internal

#endif  // VERBSEMU_SHIM_INTERNAL_NO_DESTRUCTOR_H_
