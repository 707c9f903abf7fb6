#include "tools/plot/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace verbsemu::plot {
namespace {

const char kBlue[] = "#3060c0";
const char kRed[] = "#c03030";
const char kTimeLabel[] = "time [ns] (log scale)";

std::string Fixed3(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// The lower panel of a histogram figure: the CDF from 0 to 1.
Panel CdfPanel(const Axis& x) {
  Panel p;
  p.x = x;
  p.y.label = "CDF";
  p.y.min = 0;
  p.y.max = 1.02;
  return p;
}

Look Lines(double width, int color = 0, const char* rgb = "") {
  return {.width = width, .color = color, .rgb = rgb};
}

std::string Path(const Curves& c, const std::string& file) {
  return c.dir + "/" + file;
}

// The measured points and the fits of one curves.tsv row, in colour n.
void AddCurve(const Curves& c, const IndexRow& r, int n,
              std::vector<Series>* out) {
  const std::string &name = r[1], &fit = r[3], &label = r[4];
  out->push_back(Series::File(
      Path(c, r[2]), {Col(1), Div(2, 1000), Div(5, 1000), Div(8, 1000)},
      {.style = Style::kYErrorBars, .point = 7, .point_size = 0.6, .color = n},
      name + " (" + c.stat + "; bars min..p99)"));
  if (fit == "-") return;
  out->push_back(Series::File(Path(c, fit), {Col(1), Div(2, 1000)}, Lines(2, n),
                              "fit: " + label));
  // The LogP member, dashed, unless it is the chosen fit.
  if (label.find("(logp,") != std::string::npos ||
      label.find("(const,") != std::string::npos) {
    return;
  }
  out->push_back(Series::File(Path(c, fit), {Col(1), Div(3, 1000)},
                              {.width = 1, .dash = 2, .color = n},
                              "LogP: " + name));
}

}  // namespace

std::vector<IndexRow> ReadIndex(const std::string& path, size_t fields) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::vector<IndexRow> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    IndexRow row;
    size_t start = 0;
    while (row.size() + 1 < fields) {
      const size_t tab = line.find('\t', start);
      if (tab == std::string::npos) break;
      row.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    row.push_back(line.substr(start));
    row.resize(std::max(fields, row.size()));
    rows.push_back(std::move(row));
  }
  return rows;
}

Axis LogTimeAxis(const std::vector<std::string>& dats) {
  double lo = NAN, hi = 0;
  for (const std::string& dat : dats) {
    std::ifstream in(dat);
    for (std::string line; std::getline(in, line);) {
      std::istringstream fields(line);
      double a = 0, b = 0;
      if (line.starts_with('#') || !(fields >> a >> b)) continue;
      if (std::isnan(lo) || (a > 0 && a < lo)) lo = a;
      hi = std::max(hi, b);
    }
  }
  if (!(lo > 0)) lo = hi / 1000;
  if (hi <= lo) hi = lo * 10;
  Axis x{.label = kTimeLabel, .log = true, .min = lo / 1.05, .max = hi * 1.05};
  x.tics = LogTics(*x.min, *x.max);
  return x;
}

Figure HistogramFigure(const std::string& dat, const std::string& png,
                       const std::string& label) {
  Panel pdf;
  pdf.x = LogTimeAxis({dat});
  pdf.y.label = "PDF (fraction of samples per bin)";
  pdf.series = {Series::File(
      dat, {Col(3), Div(5, 2), Col(1), Col(2), Const(0), Col(5)},
      {.style = Style::kBoxXYErrorBars, .rgb = kBlue, .fill = 0.5})};
  Panel cdf = CdfPanel(pdf.x);
  cdf.series = {
      Series::File(dat, {Col(2), Col(6)},
                   {.style = Style::kSteps, .width = 2, .rgb = kRed})};
  return {.output = png, .title = label, .panels = {pdf, cdf}};
}

Figure CdfFigure(const std::vector<std::string>& dats,
                 const std::vector<std::string>& labels,
                 const std::string& png) {
  Panel p = CdfPanel(LogTimeAxis(dats));
  p.title = "CDF of every histogram";
  p.key.place = KeyPlace::kBottomRight;
  for (size_t i = 0; i < dats.size(); ++i) {
    p.series.push_back(Series::File(dats[i], {Col(2), Col(6)},
                                    {.style = Style::kSteps, .width = 2},
                                    labels[i]));
  }
  return {.output = png, .panels = {p}};
}

Figure OverlayFigure(const IndexRow& row, const std::string& dat,
                     const std::string& png, const std::string& base,
                     const std::string& next) {
  const std::string title =
      row[7] + ": KS " + Fixed3(std::strtod(row[4].c_str(), nullptr)) +
      ", Wasserstein-1 " + Fixed3(std::strtod(row[5].c_str(), nullptr) / 1000) +
      " us (shared bins from " + row[6] + ")";
  const std::string base_key = "BASE " + base + " (" + row[2] + " samples)";
  const std::string new_key = "NEW " + next + " (" + row[3] + " samples)";
  Panel pdf;
  pdf.x = LogTimeAxis({dat});
  pdf.y.label = "PDF [1/ns]";
  const Look steps{.style = Style::kSteps, .width = 2};
  Look blue = steps, red = steps;
  blue.rgb = kBlue;
  red.rgb = kRed;
  pdf.series = {Series::File(dat, {Col(1), Col(4)}, blue, base_key),
                Series::File(dat, {Col(1), Col(5)}, red, new_key)};
  Panel cdf = CdfPanel(pdf.x);
  cdf.key.place = KeyPlace::kBottomRight;
  cdf.series = {
      Series::File(dat, {Col(2), Col(6)}, Lines(2, 0, kBlue), base_key),
      Series::File(dat, {Col(2), Col(7)}, Lines(2, 0, kRed), new_key)};
  return {.output = png, .title = title, .panels = {pdf, cdf}};
}

std::optional<Figure> CurveFigure(const Curves& c, const std::string& png,
                                  const std::string& title,
                                  const std::string& ylabel,
                                  const std::vector<std::string>& types) {
  Panel p;
  p.title = title;
  p.key = {.place = KeyPlace::kBelow, .font_size = 9};
  p.x.label = "p (peers / work requests)";
  p.y = {.label = ylabel, .log = true};
  int n = 0;
  for (const IndexRow& r : c.rows) {
    if (std::find(types.begin(), types.end(), r[0]) == types.end()) continue;
    AddCurve(c, r, ++n, &p.series);
  }
  if (n == 0) return std::nullopt;
  return Figure{.output = png, .panels = {p}};
}

std::optional<Figure> DerivedFigure(const Curves& c, const std::string& png,
                                    const Derived& d) {
  Panel p;
  p.title = d.title;
  p.key.place = KeyPlace::kTopLeft;
  p.x.label = "p";
  p.y.label = d.ylabel;
  int n = 0;
  for (const IndexRow& r : c.rows) {
    if (r[0] != "L" && r[0] != "Llist") continue;
    const std::string label = (r[0] == "L" ? d.single : d.list) + " " + r[1];
    ++n;
    p.series.push_back(Series::File(
        Path(c, r[2]), {Col(1), Div(d.measured, 1000)},
        {.style = Style::kPoints, .point = 7, .point_size = 0.7, .color = n},
        label + " (measured)"));
    p.series.push_back(Series::File(Path(c, r[2]),
                                    {Col(1), Div(d.fitted, 1000)}, Lines(2, n),
                                    label + " (from fits)"));
  }
  for (const IndexRow& r : c.rows) {
    if (!d.with_latency || r[0] != "latency") continue;
    p.series.push_back(Series::File(
        Path(c, r[2]), {Col(1), Div(2, 1000)},
        {.style = Style::kPoints, .point = 4, .point_size = 1, .color = ++n},
        r[1] + " (verbsbench)"));
  }
  if (n == 0) return std::nullopt;
  return Figure{.output = png, .panels = {p}};
}

}  // namespace verbsemu::plot
