// How a shared object binds its own call to verbs_open_device, read from its
// ELF image (no loader, no writes): a relocation against the symbol means
// the call goes through the PLT or GOT, where a preloaded libverbsemu.so
// wins; none (a -Bsymbolic-functions build such as Ubuntu's) or DF_SYMBOLIC
// means it binds inside the library.
#ifndef VERBSEMU_DOCTOR_ELF_BINDING_H_
#define VERBSEMU_DOCTOR_ELF_BINDING_H_

#include <string>
#include <string_view>

namespace verbsemu::doctor {

struct ElfBinding {
  std::string error;  // one line when the image cannot be read; else empty
  // A JUMP_SLOT or GLOB_DAT relocation against `symbol` (in DT_JMPREL or
  // DT_RELA).
  bool relocated = false;
  // DF_SYMBOLIC in DT_FLAGS (or a DT_SYMBOLIC entry).
  bool symbolic = false;
  bool ok() const { return error.empty(); }
};

// Reads a 64-bit little-endian x86-64 or AArch64 ELF image; every offset is
// checked against `image`'s size.
ElfBinding ReadElfBinding(std::string_view image, std::string_view symbol);

}  // namespace verbsemu::doctor

#endif  // VERBSEMU_DOCTOR_ELF_BINDING_H_
