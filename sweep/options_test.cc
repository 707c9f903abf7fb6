#include "sweep/options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

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
  std::ifstream in("docs/sweep.md");
  ASSERT_TRUE(in) << "docs/sweep.md not in the test's runfiles";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- sweep-options:begin -->\n",
                    end = "<!-- sweep-options:end -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()),
            SweepOptionsMarkdown())
      << "regenerate with: bazel run //sweep:options_markdown, pasted "
         "between the markers of docs/sweep.md";
}

}  // namespace
}  // namespace verbsemu::sweep
