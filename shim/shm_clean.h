// `verbsemu shm-clean`: the shim's shared segments (verbsemu-* in
// VERBSEMU_SHM_DIR, else /dev/shm) that belong to the caller, listed, and
// with --unlink removed. The shim never removes them itself (another
// process of the job may still map one); each is one page of tmpfs.
#ifndef VERBSEMU_SHIM_SHM_CLEAN_H_
#define VERBSEMU_SHIM_SHM_CLEAN_H_

#include <cstdio>
#include <string>
#include <vector>

namespace verbsemu::shim {

// `args` after "shm-clean"; `shm_dir` is VERBSEMU_SHM_DIR (nullptr or ""
// for /dev/shm). Exit status: 0, 1 (the directory cannot be read, or a
// segment not removed), 2 (bad arguments), each failure one line on `err`.
int ShmCleanCommand(const std::vector<std::string>& args, const char* shm_dir,
                    FILE* out, FILE* err);

}  // namespace verbsemu::shim

#endif  // VERBSEMU_SHIM_SHM_CLEAN_H_
