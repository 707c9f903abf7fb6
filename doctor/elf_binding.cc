#include "doctor/elf_binding.h"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace verbsemu::doctor {
namespace {

// A bounds-checked copy of a T at `offset`.
template <class T>
std::optional<T> At(std::string_view image, uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) {
    return std::nullopt;
  }
  T t;
  std::memcpy(&t, image.data() + offset, sizeof(T));
  return t;
}

// What the dynamic section says, in file offsets where it gave addresses.
struct Dynamic {
  uint64_t tag[DT_NUM] = {};  // by tag, for the tags below DT_NUM
  bool has[DT_NUM] = {};
  std::vector<Elf64_Phdr> loads;
};

// Virtual address -> file offset through the PT_LOAD segments.
std::optional<uint64_t> ToOffset(const Dynamic& d, uint64_t vaddr) {
  for (const Elf64_Phdr& p : d.loads) {
    if (vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_filesz) {
      return p.p_offset + (vaddr - p.p_vaddr);
    }
  }
  return std::nullopt;
}

// Reads the program headers and the PT_DYNAMIC entries; "" or why not.
std::string ReadDynamic(std::string_view image, Dynamic& d) {
  const auto eh = At<Elf64_Ehdr>(image, 0);
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB) {
    return "not a 64-bit little-endian ELF image";
  }
  if (eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64) {
    return "not an x86-64 or AArch64 ELF image";
  }
  std::optional<Elf64_Phdr> dyn;
  for (uint64_t i = 0; i < eh->e_phnum; ++i) {
    const auto ph = At<Elf64_Phdr>(image, eh->e_phoff + i * eh->e_phentsize);
    if (!ph) return "program header " + std::to_string(i) + " out of bounds";
    if (ph->p_type == PT_LOAD) d.loads.push_back(*ph);
    if (ph->p_type == PT_DYNAMIC) dyn = ph;
  }
  if (!dyn) return "no dynamic section";
  for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dyn->p_filesz;
       off += sizeof(Elf64_Dyn)) {
    const auto e = At<Elf64_Dyn>(image, dyn->p_offset + off);
    if (!e) return "dynamic section out of bounds";
    if (e->d_tag == DT_NULL) break;
    if (e->d_tag >= 0 && e->d_tag < DT_NUM) {
      d.tag[e->d_tag] = e->d_un.d_val;
      d.has[e->d_tag] = true;
    }
  }
  return "";
}

struct Symbols {
  uint64_t symtab = 0, strtab = 0, strsz = 0, syment = sizeof(Elf64_Sym);
};

// The name of dynamic symbol `index`, bounded by DT_STRSZ.
std::optional<std::string_view> SymbolName(std::string_view image,
                                           const Symbols& s, uint64_t index) {
  const auto sym = At<Elf64_Sym>(image, s.symtab + index * s.syment);
  if (!sym || sym->st_name >= s.strsz || s.strtab > image.size() ||
      image.size() - s.strtab < s.strsz) {
    return std::nullopt;
  }
  const std::string_view strings = image.substr(s.strtab, s.strsz);
  const size_t end = strings.find('\0', sym->st_name);
  if (end == std::string_view::npos) return std::nullopt;
  return strings.substr(sym->st_name, end - sym->st_name);
}

bool IsBinding(uint16_t machine, uint32_t type) {
  if (machine == EM_AARCH64) {
    return type == R_AARCH64_JUMP_SLOT || type == R_AARCH64_GLOB_DAT;
  }
  return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
}

// True when a binding relocation in [offset, offset+size) names `symbol`.
bool TableNames(std::string_view image, uint16_t machine, const Symbols& s,
                uint64_t offset, uint64_t size, std::string_view symbol) {
  for (uint64_t off = 0; off + sizeof(Elf64_Rela) <= size;
       off += sizeof(Elf64_Rela)) {
    const auto r = At<Elf64_Rela>(image, offset + off);
    if (!r) return false;
    if (!IsBinding(machine, ELF64_R_TYPE(r->r_info))) continue;
    const auto name = SymbolName(image, s, ELF64_R_SYM(r->r_info));
    if (name && *name == symbol) return true;
  }
  return false;
}

}  // namespace

ElfBinding ReadElfBinding(std::string_view image, std::string_view symbol) {
  ElfBinding b;
  Dynamic d;
  b.error = ReadDynamic(image, d);
  if (!b.ok()) return b;
  b.symbolic = d.has[DT_SYMBOLIC] ||
               (d.has[DT_FLAGS] && (d.tag[DT_FLAGS] & DF_SYMBOLIC) != 0);
  const auto symtab = ToOffset(d, d.tag[DT_SYMTAB]);
  const auto strtab = ToOffset(d, d.tag[DT_STRTAB]);
  if (!d.has[DT_SYMTAB] || !d.has[DT_STRTAB] || !symtab || !strtab) {
    b.error = "no dynamic symbol table";
    return b;
  }
  Symbols s{*symtab, *strtab, d.tag[DT_STRSZ],
            d.has[DT_SYMENT] ? d.tag[DT_SYMENT] : sizeof(Elf64_Sym)};
  const uint16_t machine = At<Elf64_Ehdr>(image, 0)->e_machine;
  const int tables[][2] = {{DT_JMPREL, DT_PLTRELSZ}, {DT_RELA, DT_RELASZ}};
  for (const auto& [where, size] : tables) {
    if (!d.has[where]) continue;
    const auto off = ToOffset(d, d.tag[where]);
    if (off && TableNames(image, machine, s, *off, d.tag[size], symbol)) {
      b.relocated = true;
    }
  }
  return b;
}

}  // namespace verbsemu::doctor
