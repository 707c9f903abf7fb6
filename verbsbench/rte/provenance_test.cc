#include "verbsbench/rte/provenance.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <re2/re2.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace verbsbench::rte {
namespace {

TEST(RdmaCoreFromLibraryPath, ReleaseAfterTheAbiVersion) {
  EXPECT_EQ(RdmaCoreFromLibraryPath(
                "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
            "44.0");
  EXPECT_EQ(RdmaCoreFromLibraryPath("/opt/rc/lib/libibverbs.so.1.15.50.1"),
            "50.1");
  EXPECT_EQ(RdmaCoreFromLibraryPath("/lib/libibverbs.so.1"), "");
  EXPECT_EQ(RdmaCoreFromLibraryPath("/lib/libibverbs.so.1.14"), "");
  EXPECT_EQ(RdmaCoreFromLibraryPath("/lib/libibverbs.so.1.14.x"), "");
  EXPECT_EQ(RdmaCoreFromLibraryPath("/usr/bin/verbsbench"), "");
}

TEST(CpuModelFromCpuinfo, FirstModelName) {
  EXPECT_EQ(CpuModelFromCpuinfo("processor\t: 0\nvendor_id\t: X\n"
                                "model name\t: Some CPU @ 2.30GHz\n"
                                "processor\t: 1\nmodel name\t: Other\n"),
            "Some CPU @ 2.30GHz");
  EXPECT_EQ(CpuModelFromCpuinfo("model\t\t: 85\n"), "");
  EXPECT_EQ(CpuModelFromCpuinfo("model name\t:\n"), "");
  EXPECT_EQ(CpuModelFromCpuinfo(""), "");
}

// This process, with libibverbs linked: the fields the rank map records,
// each from its own source.
TEST(LocalIdentity, NamesThisProcessAndItsSystem) {
  int devices = 0;  // a call keeps libibverbs linked (and loaded)
  if (ibv_device** list = ibv_get_device_list(&devices)) {
    ibv_free_device_list(list);
  }
  const nlohmann::json id = LocalIdentity();
  char host[HOST_NAME_MAX + 1] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(id.at("host"), host);
  EXPECT_EQ(id.at("pid"), getpid());
  EXPECT_NE(id.at("kernel"), "unknown");
  EXPECT_NE(id.at("cpu"), "");
  // The release in the real file name of the loaded libibverbs.
  Dl_info info{};
  ASSERT_NE(dladdr(dlsym(RTLD_DEFAULT, "ibv_get_device_list"), &info), 0);
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(info.dli_fname, resolved), nullptr);
  const std::string real = resolved;
  EXPECT_EQ(
      real.substr(real.size() - id.at("rdma_core").get<std::string>().size()),
      id.at("rdma_core").get<std::string>());
  EXPECT_TRUE(
      RE2::FullMatch(id.at("rdma_core").get<std::string>(), "[0-9]+\\.[0-9]+"))
      << id.dump();
}

TEST(Provenance, RecordsTheRun) {
  const nlohmann::json p =
      Provenance({"verbsbench", "lat", "-n", "5"}, {{"kind", "tcp"}});
  EXPECT_EQ(p.at("argv"), nlohmann::json({"verbsbench", "lat", "-n", "5"}));
  EXPECT_EQ(p.at("rte").at("kind"), "tcp");
  EXPECT_EQ(p.at("version"), Version());
  EXPECT_FALSE(std::string(Version()).empty());
  EXPECT_TRUE(
      RE2::FullMatch(p.at("time_utc").get<std::string>(),
                     "20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:"
                     "[0-6][0-9]Z"));
  for (const char* key : {"host", "pid", "kernel", "rdma_core", "cpu"}) {
    EXPECT_TRUE(p.contains(key)) << key;
  }
}

}  // namespace
}  // namespace verbsbench::rte
