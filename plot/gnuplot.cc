#include "plot/gnuplot.h"

#include <cmath>
#include <cstdio>
#include <utility>

namespace verbsemu::plot {
namespace {

std::string Format(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A line of its own: control characters dropped, and no '\' at the end,
// which would continue it onto the next.
std::string OneLine(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 32 && c != 127) out += c;
  }
  if (!out.empty() && out.back() == '\\') out += ' ';
  return out;
}

const char* StyleWord(Style s) {
  switch (s) {
    case Style::kLines:
      return "lines";
    case Style::kSteps:
      return "steps";
    case Style::kPoints:
      return "points";
    case Style::kYErrorBars:
      return "yerrorbars";
    case Style::kBoxXYErrorBars:
      return "boxxyerror";
  }
  return "lines";
}

std::string RenderLook(const Look& l) {
  std::string s = std::string(" with ") + StyleWord(l.style);
  if (l.width > 0) s += " lw " + Format("%g", l.width);
  if (l.dash > 0) s += " dt " + std::to_string(l.dash);
  if (l.point > 0) s += " pt " + std::to_string(l.point);
  if (l.point_size > 0) s += " ps " + Format("%g", l.point_size);
  if (!l.rgb.empty()) {
    s += " lc rgb " + Quote(l.rgb);
  } else if (l.color > 0) {
    s += " lc " + std::to_string(l.color);
  }
  if (l.fill > 0) s += " fs solid " + Format("%g", l.fill) + " border -1";
  return s;
}

std::string RenderSeries(const Series& s) {
  std::string out;
  switch (s.from) {
    case Series::From::kFile:
      out = Quote(s.source);
      break;
    case Series::From::kBlock:
      out = "$" + s.source;
      break;
    case Series::From::kFunction:
      out = OneLine(s.source);
      break;
  }
  if (s.from != Series::From::kFunction && !s.columns.empty()) {
    out += " using ";
    for (size_t i = 0; i < s.columns.size(); ++i) {
      out += (i ? ":" : "") + s.columns[i];
    }
  }
  out += RenderLook(s.look);
  return out + (s.title.empty() ? " notitle" : " title " + Quote(s.title));
}

std::string Bound(const std::optional<double>& v) {
  return v ? Number(*v) : "*";
}

std::string RenderAxis(const Axis& a, const char* name) {
  const std::string n = name;
  std::string s = (a.log ? "set logscale " : "unset logscale ") + n + "\n";
  s += "set " + n + "range [" + Bound(a.min) + ":" + Bound(a.max) + "]\n";
  if (a.tics.empty()) {
    s += "set " + n + "tics autofreq\n";
  } else {
    s += "set " + n + "tics (";
    for (size_t i = 0; i < a.tics.size(); ++i) {
      s +=
          (i ? ", " : "") + Quote(a.tics[i].label) + " " + Number(a.tics[i].at);
    }
    s += ")\n";
  }
  return s + (a.label.empty() ? "unset " + n + "label\n"
                              : "set " + n + "label " + Quote(a.label) + "\n");
}

std::string RenderKey(const Key& k) {
  const char* where = "";
  switch (k.place) {
    case KeyPlace::kNone:
      return "unset key\n";
    case KeyPlace::kTopLeft:
      where = "top left";
      break;
    case KeyPlace::kTopRight:
      where = "top right";
      break;
    case KeyPlace::kBottomRight:
      where = "bottom right";
      break;
    case KeyPlace::kBelow:
      where = "below";
      break;
  }
  std::string s = std::string("set key ") + where;
  if (k.font_size > 0) s += " font " + Quote("," + std::to_string(k.font_size));
  return s + "\n";
}

std::string RenderBand(const Band& b, int id) {
  const std::string n = std::to_string(id);
  std::string s =
      "set object " + n + " rect from " + Number(b.from) + ", graph 0 to " +
      (std::isinf(b.to) ? std::string("graph 1") : Number(b.to)) +
      ", graph 1 behind fc rgb " + Quote(b.rgb) + " fs solid 1.0 noborder\n";
  if (b.line_at) {
    const std::string at = Number(*b.line_at);
    s += "set arrow " + n + " from " + at + ", graph 0 to " + at +
         ", graph 1 nohead dt 3\n";
    if (!b.label.empty()) {
      s += "set label " + n + " " + Quote(b.label) + " at " + at +
           ", graph 0.95 offset 0.5,0\n";
    }
  }
  return s;
}

std::string Unbands(const std::vector<Band>& bands) {
  std::string s;
  for (size_t i = 1; i <= bands.size(); ++i) {
    const std::string n = std::to_string(i);
    s += "unset object " + n + "\nunset arrow " + n + "\nunset label " + n +
         "\n";
  }
  return s;
}

std::string RenderPanel(const Panel& p) {
  std::string s =
      p.title.empty() ? "unset title\n" : "set title " + Quote(p.title) + "\n";
  s += p.grid ? "set grid\n" : "unset grid\n";
  s += RenderKey(p.key);
  if (p.offsets) {
    const Offsets& o = *p.offsets;
    s += "set offsets graph " + Number(o.left) + ", graph " + Number(o.right) +
         ", graph " + Number(o.top) + ", graph " + Number(o.bottom) + "\n";
  } else {
    s += "unset offsets\n";
  }
  s += RenderAxis(p.x, "x") + RenderAxis(p.y, "y");
  for (size_t i = 0; i < p.bands.size(); ++i) {
    s += RenderBand(p.bands[i], static_cast<int>(i + 1));
  }
  for (size_t i = 0; i < p.series.size(); ++i) {
    s += (i ? ", \\\n     " : "plot ") + RenderSeries(p.series[i]);
  }
  return s + "\n" + Unbands(p.bands);
}

std::string RenderFigure(const Figure& f) {
  std::string s = "set output " + Quote(f.output) + "\n";
  const bool multi = f.panels.size() > 1;
  if (multi) {
    s += "set multiplot layout " + std::to_string(f.panels.size()) +
         ",1 title " + Quote(f.title) + "\n";
  }
  for (const Panel& p : f.panels) s += RenderPanel(p);
  if (multi) s += "unset multiplot\n";
  return s + "unset output\n";
}

}  // namespace

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 32 || c == 127) continue;
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Number(double v) { return Format("%.9g", v); }

std::string Col(int n) { return std::to_string(n); }

std::string Div(int n, double d) {
  return "($" + std::to_string(n) + "/" + Number(d) + ")";
}

std::string Const(double v) { return "(" + Number(v) + ")"; }

std::vector<Tic> LogTics(double lo, double hi) {
  std::vector<Tic> tics;
  if (!(lo > 0) || !(hi >= lo) || !std::isfinite(hi)) return tics;
  static constexpr double kMantissas[] = {1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9};
  const bool coarse = hi / lo > 30;
  const int first = static_cast<int>(std::log10(lo)) - 1;
  const int last = static_cast<int>(std::log10(hi)) + 1;
  for (int e = first; e <= last; ++e) {
    for (double m : kMantissas) {
      if (coarse && m != 1 && m != 2 && m != 5) continue;
      const double v = m * std::pow(10.0, e);
      if (v >= lo && v <= hi) tics.push_back({Format("%g", v), v});
    }
  }
  return tics;
}

Series Series::File(std::string path, std::vector<std::string> columns,
                    Look look, std::string title) {
  return {From::kFile, std::move(path), std::move(columns), std::move(look),
          std::move(title)};
}

Series Series::Block(std::string name, std::vector<std::string> columns,
                     Look look, std::string title) {
  return {From::kBlock, std::move(name), std::move(columns), std::move(look),
          std::move(title)};
}

Series Series::Function(std::string expression, Look look, std::string title) {
  return {From::kFunction,
          std::move(expression),
          {},
          std::move(look),
          std::move(title)};
}

std::string Render(const Script& script) {
  std::string s;
  for (const std::string& c : script.comments) s += "# " + OneLine(c) + "\n";
  const Terminal& t = script.terminal;
  s += "set terminal pngcairo size " + std::to_string(t.width) + "," +
       std::to_string(t.height) + " noenhanced";
  s += (t.font.empty() ? "" : " font " + Quote(t.font)) + "\n";
  for (const DataBlock& b : script.blocks) {
    s += "$" + b.name + " << EOD\n" + b.text;
    if (!b.text.empty() && b.text.back() != '\n') s += "\n";
    s += "EOD\n";
  }
  for (const Figure& f : script.figures) s += RenderFigure(f);
  return s;
}

}  // namespace verbsemu::plot
