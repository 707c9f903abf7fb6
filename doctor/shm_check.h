// Check 4: the shared-memory directory where shim processes of a node keep
// each port's virtual link and packet counts.
#ifndef VERBSEMU_DOCTOR_SHM_CHECK_H_
#define VERBSEMU_DOCTOR_SHM_CHECK_H_

#include <cstdint>

#include "doctor/finding.h"
#include "doctor/system_view.h"

namespace verbsemu::doctor {

// Below this much free space the directory is a problem.
inline constexpr uint64_t kMinShmFree = 16ull << 20;

// /dev/shm, or VERBSEMU_SHM_DIR when set: exists, writable, free space.
Findings CheckSharedMemory(const SystemView& view);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_SHM_CHECK_H_
