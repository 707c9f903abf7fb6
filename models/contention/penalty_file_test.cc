// The penalties file: written and read back, shapes looked up whatever the
// labels and edge order, the model for the rest, one line per mistake.
#include "models/contention/penalty_file.h"

#include <gtest/gtest.h>

#include <string>

namespace verbsemu::contention {
namespace {

Graph Parse(const char* text) {
  std::string why;
  return ParseGraph(text, &why).value();
}

TEST(PenaltyFile, WrittenIsReadBack) {
  PenaltyFile f;
  f.model = FindModel("maxmin");
  f.shapes["0>1,0>2"] = {2.5, 1.25};
  f.shapes["0>2,1>2"] = {1.5, 1.5};
  const std::string text = WritePenaltyFile(f);
  EXPECT_EQ(text,
            "# verbsemu penalties v1\n"
            "model maxmin\n"
            "shape 0>1,0>2 rho=2.5,1.25\n"
            "shape 0>2,1>2 rho=1.5,1.5\n");
  std::string why;
  const auto r = ParsePenaltyFile(text, &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->model, FindModel("maxmin"));
  EXPECT_EQ(r->shapes, f.shapes);
}

TEST(PenaltyFile, CommentsAndBlankLinesAreIgnored) {
  std::string why;
  const auto r = ParsePenaltyFile(
      "# verbsemu penalties v1\n\n# measured on star:6\nmodel ib-hol\n", &why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->model->name, "ib-hol");
  EXPECT_TRUE(r->shapes.empty());
}

// The canonical form's edge order maps back to the graph's own: in
// "d>b,a>c,a>b" (canonical 0>2,0>3,1>3: a is 0, d is 1) a>c is 0>2.
TEST(PenaltyFile, ShapeIsFoundWhateverTheLabels) {
  PenaltyFile f;
  f.model = FindModel("mm2011-node");
  f.shapes["0>2,0>3,1>3"] = {7, 8, 9};
  EXPECT_EQ(f(Parse("d>b,a>c,a>b")), (std::vector<double>{9, 7, 8}));
  EXPECT_EQ(f(Parse("x>y,x>z,w>z")), (std::vector<double>{7, 8, 9}));
}

TEST(PenaltyFile, OtherShapesTakeTheModel) {
  PenaltyFile f;
  f.model = FindModel("mm2011-node");
  f.shapes["0>2,0>3,1>3"] = {7, 8, 9};
  EXPECT_EQ(f(Parse("a>b,a>c,a>d")), (std::vector<double>{3, 3, 3}));
}

struct Bad {
  const char* name;
  const char* text;
  const char* why;
};

class PenaltyFileBad : public ::testing::TestWithParam<Bad> {};

TEST_P(PenaltyFileBad, IsOneLine) {
  std::string why;
  EXPECT_FALSE(ParsePenaltyFile(GetParam().text, &why));
  EXPECT_EQ(why, GetParam().why);
}

INSTANTIATE_TEST_SUITE_P(
    All, PenaltyFileBad,
    ::testing::Values(
        Bad{"Empty", "",
            "line 1: not a penalties file (the first line must be "
            "'# verbsemu penalties v1')"},
        Bad{"NextVersion", "# verbsemu penalties v2\nmodel maxmin\n",
            "line 1: penalties file version '2', this verbsemu reads v1: "
            "export it again"},
        Bad{"NoModel", "# verbsemu penalties v1\n", "no 'model NAME' line"},
        Bad{"UnknownModel", "# verbsemu penalties v1\nmodel fast\n",
            "line 2: model 'fast' is not one of mm2011-node, mm2011-edge, "
            "maxmin, ib-hol"},
        Bad{"TwoModels", "# verbsemu penalties v1\nmodel maxmin\nmodel maxmin",
            "line 3: a second 'model' line"},
        Bad{"Junk", "# verbsemu penalties v1\nmodel maxmin\nrho 2\n",
            "line 3: expected 'model NAME' or 'shape FORM rho=...', a "
            "comment or nothing"},
        Bad{"NotCanonical",
            "# verbsemu penalties v1\nmodel maxmin\nshape a>b,a>c rho=2,2\n",
            "line 3: shape 'a>b,a>c' is not in canonical form (0>1,0>2)"},
        Bad{"BadForm",
            "# verbsemu penalties v1\nmodel maxmin\nshape 0>0 rho=2\n",
            "line 3: shape '0>0': edge '0>0' is a self-loop"},
        Bad{"NoRho", "# verbsemu penalties v1\nmodel maxmin\nshape 0>1\n",
            "line 3: a shape is 'shape FORM rho=R,R,...'"},
        Bad{"Count",
            "# verbsemu penalties v1\nmodel maxmin\nshape 0>1,0>2 rho=2\n",
            "line 3: shape 0>1,0>2 has 2 edges and 1 penalties"},
        Bad{"BelowOne",
            "# verbsemu penalties v1\nmodel maxmin\nshape 0>1 rho=0.9\n",
            "line 3: rho: '0.9' is not a number in [1, 1e6]"},
        Bad{"NotANumber",
            "# verbsemu penalties v1\nmodel maxmin\nshape 0>1 rho=nan\n",
            "line 3: rho: 'nan' is not a number in [1, 1e6]"},
        Bad{"Twice",
            "# verbsemu penalties v1\nmodel maxmin\nshape 0>1 rho=1\nshape "
            "0>1 rho=1\n",
            "line 4: shape 0>1 listed twice"},
        Bad{"Control", "# verbsemu penalties v1\r\nmodel maxmin\n",
            "a control character: not a penalties file"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace verbsemu::contention
