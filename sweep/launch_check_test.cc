#include "sweep/launch_check.h"

#include <gtest/gtest.h>

namespace verbsemu::sweep {
namespace {

const std::vector<std::string> kVars = {"LD_PRELOAD", "VERBSEMU_LATENCY"};

TEST(LaunchCheckTest, OpenMpiNeedsDashXForEachVariable) {
  const std::string p = ForwardingProblem({"mpirun", "-np", "2", "./app"},
                                          kVars, MpiFlavour::kOpenMpi, "");
  EXPECT_NE(p.find("add -x LD_PRELOAD -x VERBSEMU_LATENCY"), std::string::npos)
      << p;
  EXPECT_EQ(ForwardingProblem({"/usr/bin/mpirun", "-x", "LD_PRELOAD", "-x",
                               "VERBSEMU_LATENCY=1us", "./app"},
                              kVars, MpiFlavour::kOpenMpi, ""),
            "");
  const std::string one =
      ForwardingProblem({"mpiexec", "-x", "LD_PRELOAD", "./app"}, kVars,
                        MpiFlavour::kOpenMpi, "");
  EXPECT_NE(one.find("add -x VERBSEMU_LATENCY to"), std::string::npos) << one;
}

TEST(LaunchCheckTest, HydraAndSrunForwardAllUnlessToldOtherwise) {
  EXPECT_EQ(ForwardingProblem({"mpiexec", "-n", "2", "./app"}, kVars,
                              MpiFlavour::kHydra, ""),
            "");
  EXPECT_NE(ForwardingProblem({"mpiexec", "-genvnone", "./app"}, kVars,
                              MpiFlavour::kHydra, ""),
            "");
  EXPECT_NE(ForwardingProblem({"mpiexec", "-genvlist", "LD_PRELOAD", "./a"},
                              kVars, MpiFlavour::kHydra, "")
                .find("add VERBSEMU_LATENCY"),
            std::string::npos);
  EXPECT_EQ(ForwardingProblem({"srun", "-n", "2", "./app"}, kVars,
                              MpiFlavour::kUnknown, ""),
            "");
  EXPECT_EQ(ForwardingProblem({"srun", "--export=ALL,FOO=1", "./app"}, kVars,
                              MpiFlavour::kUnknown, ""),
            "");
  EXPECT_NE(ForwardingProblem({"srun", "--export=NONE", "./app"}, kVars,
                              MpiFlavour::kUnknown, ""),
            "");
  EXPECT_NE(
      ForwardingProblem({"srun", "./app"}, kVars, MpiFlavour::kUnknown, "NONE"),
      "");
  EXPECT_EQ(ForwardingProblem({"./app"}, kVars, MpiFlavour::kUnknown, "NONE"),
            "");
}

TEST(LaunchCheckTest, FlavourFromVersionOrPath) {
  EXPECT_EQ(FlavourFromText("mpirun (Open MPI) 4.1.4"), MpiFlavour::kOpenMpi);
  EXPECT_EQ(FlavourFromText("/usr/bin/mpirun.openmpi"), MpiFlavour::kOpenMpi);
  EXPECT_EQ(FlavourFromText("HYDRA build details:"), MpiFlavour::kHydra);
  EXPECT_EQ(FlavourFromText("/usr/bin/mpiexec.mpich"), MpiFlavour::kHydra);
  EXPECT_EQ(FlavourFromText("/usr/bin/mpirun"), MpiFlavour::kUnknown);
}

}  // namespace
}  // namespace verbsemu::sweep
