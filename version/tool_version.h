// `--version` of every verbsemu program, from one place: one line
// "NAME RELEASE (git DESCRIBE, rdma-core X built against)". The shim
// carries the same text after NAME (version/shim_note.cc).
#ifndef VERBSEMU_VERSION_TOOL_VERSION_H_
#define VERBSEMU_VERSION_TOOL_VERSION_H_

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace verbsemu::version {

// "0.1.0 (git v0.1.0-3-gabcdef0, rdma-core 44.0 built against)"
std::string_view Tail();
// "0.1.0": the release alone (debian/changelog's top entry).
std::string_view Release();
// "NAME " + Tail()
std::string Line(std::string_view name);

// argv[1] is "--version" (the programs answer it before parsing the rest).
bool Asked(int argc, const char* const argv[]);
// Prints Line(name) to stdout; returns 0, the exit status.
int Print(std::string_view name);

// The version text a shim's bytes carry; nullopt when they carry none.
std::optional<std::string> FromShimBytes(std::string_view bytes);
// The same for the library at `path`; nullopt when unreadable or none.
std::optional<std::string> OfShim(const std::string& path);

// `verbsemu --version`: the launcher's line, then the shim it would load
// (`shim_path`, "" when none was found) and its version on `out`; a
// one-line warning on `err` when the shim is missing, carries no version
// or another one. Returns 0.
int LauncherVersion(const std::string& shim_path, FILE* out, FILE* err);

}  // namespace verbsemu::version

#endif  // VERBSEMU_VERSION_TOOL_VERSION_H_
