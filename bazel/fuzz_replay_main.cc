// Replay driver for fuzz targets built without libFuzzer: feeds every file
// named on the command line (directories: every file in them) to
// LLVMFuzzerTestOneInput, the way libFuzzer itself runs a corpus.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz replay: cannot read %s\n", path.c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int inputs = 0, errors = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (!std::filesystem::is_regular_file(entry.path())) continue;
        errors += RunFile(entry.path());
        ++inputs;
      }
    } else {
      errors += RunFile(arg);
      ++inputs;
    }
  }
  std::printf("fuzz replay: %d inputs, %d unreadable\n", inputs, errors);
  return errors == 0 && inputs > 0 ? 0 : 1;
}
