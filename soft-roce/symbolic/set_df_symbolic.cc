// Copies a shared object and sets DF_SYMBOLIC in its dynamic section's
// DT_FLAGS, so that the dynamic loader binds the object's references to its
// own definitions first: what a -Wl,-Bsymbolic-functions build does to
// function calls inside the library (Ubuntu links every package so). The
// Soft-RoCE test bed runs its suites with such a copy of Debian's libibverbs
// to reproduce how Ubuntu's binds ibv_open_device -> verbs_open_device.
//   set_df_symbolic IN OUT
// Prints the flags before and after; exit 1 with one line on any error
// (not a 64-bit little-endian ELF shared object, no DT_FLAGS entry and no
// spare DT_NULL slot to put one in).
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

bool Fail(const std::string& msg) {
  std::fprintf(stderr, "set_df_symbolic: %s\n", msg.c_str());
  return false;
}

template <class T>
T* At(std::vector<char>& bytes, uint64_t offset) {
  if (offset + sizeof(T) > bytes.size()) return nullptr;
  return reinterpret_cast<T*>(bytes.data() + offset);
}

// The dynamic section's entries (from PT_DYNAMIC), or nullptr.
Elf64_Dyn* Dynamic(std::vector<char>& bytes, size_t* count) {
  auto* eh = At<Elf64_Ehdr>(bytes, 0);
  if (eh == nullptr || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_DYN) {
    return nullptr;
  }
  for (int i = 0; i < eh->e_phnum; ++i) {
    auto* ph =
        At<Elf64_Phdr>(bytes, eh->e_phoff + uint64_t{eh->e_phentsize} * i);
    if (ph == nullptr) return nullptr;
    if (ph->p_type != PT_DYNAMIC) continue;
    if (ph->p_offset + ph->p_filesz > bytes.size()) return nullptr;
    *count = ph->p_filesz / sizeof(Elf64_Dyn);
    return At<Elf64_Dyn>(bytes, ph->p_offset);
  }
  return nullptr;
}

// Sets DF_SYMBOLIC in DT_FLAGS, adding the entry in a spare DT_NULL slot
// (one DT_NULL must stay as the terminator) when there is none.
bool SetSymbolic(Elf64_Dyn* dyn, size_t count) {
  size_t end = 0;
  while (end < count && dyn[end].d_tag != DT_NULL) ++end;
  for (size_t i = 0; i < end; ++i) {
    if (dyn[i].d_tag != DT_FLAGS) continue;
    std::printf(
        "DT_FLAGS 0x%llx -> 0x%llx\n",
        static_cast<unsigned long long>(dyn[i].d_un.d_val),
        static_cast<unsigned long long>(dyn[i].d_un.d_val | DF_SYMBOLIC));
    dyn[i].d_un.d_val |= DF_SYMBOLIC;
    return true;
  }
  if (end + 1 >= count) return Fail("no DT_FLAGS entry and no spare slot");
  dyn[end].d_tag = DT_FLAGS;
  dyn[end].d_un.d_val = DF_SYMBOLIC;
  std::printf("DT_FLAGS added: 0x%x\n", DF_SYMBOLIC);
  return true;
}

bool Run(const char* in, const char* out) {
  std::ifstream is(in, std::ios::binary);
  if (!is) return Fail(std::string("cannot read ") + in);
  std::vector<char> bytes((std::istreambuf_iterator<char>(is)),
                          std::istreambuf_iterator<char>());
  size_t count = 0;
  Elf64_Dyn* dyn = Dynamic(bytes, &count);
  if (dyn == nullptr) {
    return Fail(std::string(in) +
                " is not a 64-bit little-endian ELF shared object with a "
                "dynamic section");
  }
  if (!SetSymbolic(dyn, count)) return false;
  std::ofstream os(out, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  os.close();
  if (!os) return Fail(std::string("cannot write ") + out);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: set_df_symbolic IN OUT\n");
    return 2;
  }
  return Run(argv[1], argv[2]) ? 0 : 1;
}
