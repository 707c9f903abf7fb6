#include "man/knobs_page.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::man {
namespace {

// What the page shows for `text`, as groff would print it: escapes undone.
std::string Unroff(std::string text) {
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"\\-", "-"},
        {"\\e", "\\"},
        {"\\&", ""}}) {
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos;) {
      text.replace(at, from.size(), to);
      at += to.size();
    }
  }
  return text;
}

TEST(KnobsPageTest, NamesEveryKnobWithItsFlagValuesAndDefault) {
  const std::string page = Unroff(KnobsPage(shim::Knobs(), "verbsemu 1.2"));
  ASSERT_FALSE(shim::Knobs().empty());
  for (const shim::Knob& k : shim::Knobs()) {
    SCOPED_TRACE(std::string(k.env));
    EXPECT_NE(page.find(".BI " + std::string(k.env) + " = "),
              std::string::npos);
    EXPECT_NE(page.find(std::string(k.flag)), std::string::npos);
    EXPECT_NE(page.find(std::string(k.accepts)), std::string::npos);
    EXPECT_NE(page.find("Unset: " + std::string(k.fallback)),
              std::string::npos);
    EXPECT_NE(page.find(std::string(k.effect)), std::string::npos);
  }
}

TEST(KnobsPageTest, TitleLineNamesSectionSevenAndTheVersion) {
  const std::string page = KnobsPage(shim::Knobs(), "verbsemu 1.2");
  EXPECT_EQ(page.rfind(".TH VERBSEMU 7 \"\" \"verbsemu 1.2\"", 0), 0u);
}

TEST(KnobsPageTest, AKnobOfAnotherTableAppearsAndNoOtherDoes) {
  const shim::Knob only[] = {
      {"VERBSEMU_X", "--x", "N", "a number", "1", "does x", nullptr}};
  const std::string page = KnobsPage(only, "v");
  EXPECT_NE(page.find("VERBSEMU_X"), std::string::npos);
  EXPECT_EQ(page.find("VERBSEMU_LATENCY"), std::string::npos);
}

TEST(RoffTest, EscapesWhatRoffWouldInterpret) {
  EXPECT_EQ(Roff("--latency"), "\\-\\-latency");
  EXPECT_EQ(Roff("a\\b"), "a\\eb");
  EXPECT_EQ(Roff(".5ms"), "\\&.5ms");
  EXPECT_EQ(Roff("'quoted'"), "\\&'quoted'");
  EXPECT_EQ(Roff("plain text"), "plain text");
}

}  // namespace
}  // namespace verbsemu::man
