#include "verbsbench/rte/launcher.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "verbsbench/mode.h"

namespace verbsbench::rte {
namespace {

using Env = std::map<std::string, std::string>;

Getenv From(const Env& env) {
  return [env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

TEST(DetectLauncher, PlainRunHasNone) {
  EXPECT_FALSE(DetectLauncher(From({})));
  EXPECT_FALSE(DetectLauncher(From({{"HOME", "/root"}})));
}

TEST(DetectLauncher, OpenMpiMpirun) {
  const auto launch = DetectLauncher(From({{"OMPI_COMM_WORLD_RANK", "2"},
                                           {"OMPI_COMM_WORLD_SIZE", "3"},
                                           {"PMIX_RANK", "2"}}));
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->variable, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(launch->rank, 2);
  EXPECT_EQ(launch->size, 3);
  EXPECT_EQ(launch->ToJson().at("size"), 3);
}

TEST(DetectLauncher, PmixAloneHasNoCount) {
  const auto launch = DetectLauncher(From({{"PMIX_RANK", "5"}}));
  ASSERT_TRUE(launch);
  EXPECT_EQ(launch->variable, "PMIX_RANK");
  EXPECT_EQ(launch->rank, 5);
  EXPECT_EQ(launch->size, -1);
  EXPECT_FALSE(launch->ToJson().contains("size"));
}

TEST(DetectLauncher, PmiAndSrun) {
  const auto pmi = DetectLauncher(From({{"PMI_RANK", "0"}, {"PMI_SIZE", "4"}}));
  ASSERT_TRUE(pmi);
  EXPECT_EQ(pmi->variable, "PMI_RANK");
  const auto srun = DetectLauncher(From({{"SLURM_PROCID", "1"},
                                         {"SLURM_STEP_NUM_TASKS", "2"},
                                         {"SLURM_NTASKS", "2"}}));
  ASSERT_TRUE(srun);
  EXPECT_EQ(srun->variable, "SLURM_PROCID");
  EXPECT_EQ(srun->size, 2);
}

// A batch script's own shell: SLURM_PROCID and SLURM_NTASKS, no step.
TEST(DetectLauncher, SlurmBatchShellIsNoLaunch) {
  EXPECT_FALSE(
      DetectLauncher(From({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}})));
}

TEST(DetectLauncher, OneProcessIsAPlainRun) {
  EXPECT_FALSE(DetectLauncher(From({{"OMPI_COMM_WORLD_RANK", "0"},
                                    {"OMPI_COMM_WORLD_SIZE", "1"},
                                    {"PMIX_RANK", "0"}})));
  EXPECT_FALSE(DetectLauncher(
      From({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "1"}})));
}

TEST(DetectLauncher, BadValuesAreOneLine) {
  for (const Env& env : std::initializer_list<Env>{
           {{"OMPI_COMM_WORLD_RANK", "x"}, {"OMPI_COMM_WORLD_SIZE", "3"}},
           {{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", ""}},
           {{"PMIX_RANK", "-1"}},
           {{"PMI_RANK", "4"}, {"PMI_SIZE", "4"}},
           {{"PMI_RANK", " 1"}, {"PMI_SIZE", "4"}},
           {{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "99999999999"}}}) {
    try {
      DetectLauncher(From(env));
      ADD_FAILURE() << "accepted " << env.begin()->first;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find("--rte tcp"), std::string::npos) << what;
    }
  }
}

TEST(ResolveRte, AutoFollowsTheLauncherUnlessAHostIsGiven) {
  const Getenv mpirun =
      From({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "3"}});
  EXPECT_EQ(ResolveRte(Rte::kAuto, false, mpirun), Rte::kMpi);
  EXPECT_EQ(ResolveRte(Rte::kAuto, true, mpirun), Rte::kTcp);
  EXPECT_EQ(ResolveRte(Rte::kAuto, false, From({})), Rte::kTcp);
  EXPECT_EQ(ResolveRte(Rte::kTcp, false, mpirun), Rte::kTcp);
  EXPECT_EQ(ResolveRte(Rte::kMpi, false, From({})), Rte::kMpi);
}

TEST(ResolveRte, ExplicitTcpIgnoresBadVariables) {
  EXPECT_EQ(ResolveRte(Rte::kTcp, false, From({{"PMIX_RANK", "junk"}})),
            Rte::kTcp);
  EXPECT_THROW(ResolveRte(Rte::kAuto, false, From({{"PMIX_RANK", "junk"}})),
               std::invalid_argument);
}

TEST(ApplyLauncher, PeersComeFromTheLauncherUnlessGiven) {
  const Getenv mpirun =
      From({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "5"}});
  Options o;
  o.mode = Mode::kLop;
  ApplyLauncher(o, /*peers_given=*/false, mpirun);
  EXPECT_EQ(o.rte, Rte::kMpi);
  EXPECT_EQ(o.peers, 0);
  const Options n = Normalize(o);  // P unknown yet: no p values, no error
  EXPECT_TRUE(n.p_values.empty());
  EXPECT_EQ(n.cm, Cm::kTcp);  // the QPs go over MPI

  Options given;
  given.mode = Mode::kLop;
  given.peers = 4;
  ApplyLauncher(given, /*peers_given=*/true, mpirun);
  EXPECT_EQ(given.peers, 4);

  Options plain;
  ApplyLauncher(plain, false, From({}));
  EXPECT_EQ(plain.rte, Rte::kTcp);
  EXPECT_EQ(plain.peers, 1);
}

TEST(Normalize, MpiRefusesHostAndRdmacm) {
  Options o;
  o.rte = Rte::kMpi;
  o.host = "root-host";
  EXPECT_THROW(Normalize(o), std::invalid_argument);
  o.host.clear();
  o.cm = Cm::kRdmacm;
  EXPECT_THROW(Normalize(o), std::invalid_argument);
  o.cm = Cm::kAuto;
  EXPECT_EQ(Normalize(o).cm, Cm::kTcp);
}

}  // namespace
}  // namespace verbsbench::rte
