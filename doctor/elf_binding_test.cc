#include "doctor/elf_binding.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace verbsemu::doctor {
namespace {

// A small shared object image: one PT_LOAD mapping the file at address
// 0x1000 + offset, a dynamic symbol table, one relocation and a dynamic
// section.
struct ImageSpec {
  uint16_t machine = EM_X86_64;
  std::string symbol = "verbs_open_device";
  uint32_t type = R_X86_64_JUMP_SLOT;
  bool in_plt = true;  // DT_JMPREL, else DT_RELA
  uint64_t flags = 0;  // DT_FLAGS, when non-zero
};

constexpr uint64_t kBase = 0x1000;

template <class T>
uint64_t Put(std::string& image, const T& t) {
  image.resize((image.size() + 7) & ~size_t{7});
  const uint64_t at = image.size();
  image.append(reinterpret_cast<const char*>(&t), sizeof(T));
  return at;
}

std::string BuildImage(const ImageSpec& spec) {
  std::string image(sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr), '\0');
  const std::string strings = std::string("\0", 1) + spec.symbol + '\0';
  const uint64_t strtab = image.size();
  image += strings;
  Elf64_Sym sym{};
  const uint64_t symtab = Put(image, sym);
  sym.st_name = 1;
  sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  Put(image, sym);
  Elf64_Rela rela{};
  rela.r_info = ELF64_R_INFO(1, spec.type);
  const uint64_t rel = Put(image, rela);
  std::vector<Elf64_Dyn> dyn = {
      {DT_STRTAB, {kBase + strtab}},
      {DT_STRSZ, {strings.size()}},
      {DT_SYMTAB, {kBase + symtab}},
      {DT_SYMENT, {sizeof(Elf64_Sym)}},
      {spec.in_plt ? DT_JMPREL : DT_RELA, {kBase + rel}},
      {spec.in_plt ? DT_PLTRELSZ : DT_RELASZ, {sizeof(Elf64_Rela)}}};
  if (spec.flags != 0) dyn.push_back({DT_FLAGS, {spec.flags}});
  dyn.push_back({DT_NULL, {0}});
  uint64_t dyn_at = 0;
  for (const Elf64_Dyn& d : dyn) {
    const uint64_t at = Put(image, d);
    if (dyn_at == 0) dyn_at = at;
  }
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_type = ET_DYN;
  eh.e_machine = spec.machine;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = 2;
  std::memcpy(image.data(), &eh, sizeof(eh));
  Elf64_Phdr ph[2] = {};
  ph[0].p_type = PT_LOAD;
  ph[0].p_vaddr = kBase;
  ph[0].p_filesz = image.size();
  ph[1].p_type = PT_DYNAMIC;
  ph[1].p_offset = dyn_at;
  ph[1].p_vaddr = kBase + dyn_at;
  ph[1].p_filesz = dyn.size() * sizeof(Elf64_Dyn);
  std::memcpy(image.data() + sizeof(eh), ph, sizeof(ph));
  return image;
}

TEST(ElfBinding, JumpSlotInThePltIsFound) {
  const ElfBinding b = ReadElfBinding(BuildImage({}), "verbs_open_device");
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_TRUE(b.relocated);
  EXPECT_FALSE(b.symbolic);
}

TEST(ElfBinding, GlobDatInRelaDynIsFound) {
  ImageSpec s;
  s.type = R_X86_64_GLOB_DAT;
  s.in_plt = false;
  EXPECT_TRUE(ReadElfBinding(BuildImage(s), "verbs_open_device").relocated);
}

TEST(ElfBinding, AArch64RelocationTypes) {
  ImageSpec s;
  s.machine = EM_AARCH64;
  s.type = R_AARCH64_JUMP_SLOT;
  EXPECT_TRUE(ReadElfBinding(BuildImage(s), "verbs_open_device").relocated);
  // An x86-64 type number means something else on AArch64.
  s.type = R_X86_64_JUMP_SLOT;
  EXPECT_FALSE(ReadElfBinding(BuildImage(s), "verbs_open_device").relocated);
}

TEST(ElfBinding, OtherSymbolOrTypeIsNotABinding) {
  ImageSpec s;
  s.symbol = "verbs_set_ops";
  EXPECT_FALSE(ReadElfBinding(BuildImage(s), "verbs_open_device").relocated);
  s = {};
  s.type = R_X86_64_RELATIVE;
  EXPECT_FALSE(ReadElfBinding(BuildImage(s), "verbs_open_device").relocated);
}

TEST(ElfBinding, DfSymbolicIsRead) {
  ImageSpec s;
  s.flags = DF_SYMBOLIC | DF_BIND_NOW;
  const ElfBinding b = ReadElfBinding(BuildImage(s), "verbs_open_device");
  EXPECT_TRUE(b.relocated);
  EXPECT_TRUE(b.symbolic);
  s.flags = DF_BIND_NOW;
  EXPECT_FALSE(ReadElfBinding(BuildImage(s), "verbs_open_device").symbolic);
}

TEST(ElfBinding, NotElfIsOneLine) {
  const ElfBinding b = ReadElfBinding("not an ELF file", "verbs_open_device");
  EXPECT_EQ(b.error, "not a 64-bit little-endian ELF image");
  ImageSpec s;
  s.machine = EM_386;
  EXPECT_EQ(ReadElfBinding(BuildImage(s), "x").error,
            "not an x86-64 or AArch64 ELF image");
}

// Every truncation of a valid image reads without touching memory past it
// (run under ASan to see it) and never claims a binding it cannot see.
TEST(ElfBinding, TruncatedImagesAreBoundsChecked) {
  const std::string image = BuildImage({});
  for (size_t n = 0; n < image.size(); ++n) {
    const std::string cut = image.substr(0, n);
    const ElfBinding b = ReadElfBinding(cut, "verbs_open_device");
    EXPECT_FALSE(b.ok() && b.relocated) << n;
  }
}

// Offsets and sizes from a hostile image: far past the end, wrapping.
TEST(ElfBinding, HugeOffsetsAreRefused) {
  std::string image = BuildImage({});
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof(eh));
  eh.e_phoff = ~uint64_t{0} - 8;
  std::string bad = image;
  std::memcpy(bad.data(), &eh, sizeof(eh));
  EXPECT_FALSE(ReadElfBinding(bad, "verbs_open_device").ok());
  // Each 8-byte word of the image set to all ones in turn.
  for (size_t at = 0; at + 8 <= image.size(); at += 8) {
    bad = image;
    std::memset(bad.data() + at, 0xff, 8);
    ReadElfBinding(bad, "verbs_open_device");
  }
}

}  // namespace
}  // namespace verbsemu::doctor
