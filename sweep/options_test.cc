#include "sweep/options.h"

#include <gtest/gtest.h>

#include <string>

#include "base/doc_section.h"
#include "settings/knobs.h"
#include "sweep/grid.h"
#include "sweep/plan.h"

namespace verbsemu::sweep {
namespace {

// --help and the docs name every option, the LogGP axes and --bw-mode's
// values included (they come from kDurationAxes and the knob table).
TEST(SweepOptionsTest, UsageAndTableNameEveryOption) {
  const std::string usage = SweepUsage(), table = SweepOptionsMarkdown();
  ASSERT_GE(SweepOptions().options().size(), 24u);
  for (const auto& d : SweepOptions().options()) {
    const std::string flag = "--" + d->long_name();
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
    EXPECT_NE(table.find("`" + flag), std::string::npos) << flag;
  }
  for (const DurationAxis& a : kDurationAxes) {
    EXPECT_NE(usage.find(std::string(a.flag) + " LIST"), std::string::npos)
        << a.flag;
  }
  const std::string modes(shim::FindKnobByFlag("--bw-mode")->metavar);
  EXPECT_NE(usage.find("--bw-mode " + modes), std::string::npos) << usage;
  EXPECT_TRUE(usage.starts_with("usage: verbsemu sweep [FLAGS] -- COMMAND"))
      << usage;
}

// docs/sweep.md carries the table between markers; regenerate it with
// `bazel run //sweep:options_markdown`.
TEST(SweepOptionsTest, DocsTableIsCurrent) {
  std::string table, why;
  ASSERT_TRUE(base::DocSection("docs/sweep.md", "sweep-options", &table, &why))
      << why;
  EXPECT_EQ(table, SweepOptionsMarkdown())
      << "regenerate with: bazel run //sweep:options_markdown, pasted "
         "between the markers of docs/sweep.md";
}

}  // namespace
}  // namespace verbsemu::sweep
