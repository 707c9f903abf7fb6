#include "settings/defer_cpu.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <string>
#include <thread>
#include <vector>

namespace verbsemu::shim::internal {
namespace {

using Cpus = std::vector<int>;

TEST(DeferCpuTest, CpuListsAsTheKernelPrintsThem) {
  EXPECT_EQ(ParseCpuList("3"), Cpus({3}));
  EXPECT_EQ(ParseCpuList("0-3,8"), Cpus({0, 1, 2, 3, 8}));
  EXPECT_EQ(ParseCpuList("8,0-1,1"), Cpus({0, 1, 8}));
  for (const char* bad : {"", ",", "1,", "3-1", "a", "-1", "1-", "99999"}) {
    EXPECT_FALSE(ParseCpuList(bad)) << bad;
  }
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({5}), "5");
}

TEST(DeferCpuTest, TheSettingIsAutoInheritOrAList) {
  std::string why;
  EXPECT_EQ(ParseDeferCpu("auto", &why)->kind, DeferCpu::Kind::kAuto);
  EXPECT_EQ(ParseDeferCpu("inherit", &why)->kind, DeferCpu::Kind::kInherit);
  const auto list = ParseDeferCpu("2-3", &why);
  ASSERT_TRUE(list);
  EXPECT_EQ(list->kind, DeferCpu::Kind::kList);
  EXPECT_EQ(list->cpus, Cpus({2, 3}));
  EXPECT_FALSE(ParseDeferCpu("any", &why));
  EXPECT_NE(why.find("CPU list"), std::string::npos);
}

TEST(DeferCpuTest, AutoLeavesTheBoundApplicationsCpus) {
  const DeferCpu automatic;
  // mpirun --bind-to core: the rank on core 2 of 0-7.
  EXPECT_EQ(ChooseDeferCpus(automatic, {2}, {0, 1, 2, 3, 4, 5, 6, 7}),
            Cpus({0, 1, 3, 4, 5, 6, 7}));
  // Not bound: it stays where it is.
  EXPECT_EQ(ChooseDeferCpus(automatic, {0, 1, 2, 3}, {0, 1, 2, 3}), Cpus());
  EXPECT_EQ(ChooseDeferCpus({DeferCpu::Kind::kInherit, {}}, {2}, {0, 1, 2}),
            Cpus());
  EXPECT_EQ(ChooseDeferCpus({DeferCpu::Kind::kList, {5}}, {2}, {0, 1, 2}),
            Cpus({5}));
}

// A thread bound to one CPU, as a rank under --bind-to core, starts the
// progress thread: with auto it runs elsewhere, with inherit there.
TEST(DeferCpuTest, AThreadBoundToOneCpuPlacesItsHelperElsewhere) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  std::string automatic, inherited;
  std::thread bound([&] {
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
    std::thread helper([&] { automatic = PlaceThisThread(DeferCpu{}); });
    helper.join();
    std::thread stays([&] {
      inherited = PlaceThisThread({DeferCpu::Kind::kInherit, {}});
    });
    stays.join();
  });
  bound.join();
  if (std::thread::hardware_concurrency() < 2) {
    EXPECT_EQ(automatic,
              "progress thread on CPUs 0 (the application's: no other CPU "
              "online)");
  } else {
    EXPECT_NE(automatic.find("off the application's 0)"), std::string::npos)
        << automatic;
    EXPECT_EQ(automatic.find("CPUs 0 "), std::string::npos) << automatic;
  }
  EXPECT_EQ(inherited, "progress thread on CPUs 0 (inherited)");
}

}  // namespace
}  // namespace verbsemu::shim::internal
