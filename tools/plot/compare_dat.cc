#include "tools/plot/compare_dat.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "tools/plot/histogram_dat.h"
#include "verbsbench/compare/distance.h"

namespace verbsemu::plot {
namespace {

namespace cmp = verbsbench::compare;

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void WritePoint(const std::string& path, const cmp::PointComparison& p) {
  std::ofstream out(path);
  out << "# " << p.id << "\n"
      << "# lo_ns hi_ns mid_ns base_pdf new_pdf base_cdf new_cdf\n";
  for (const cmp::OverlayRow& r : cmp::Overlay(p.shared)) {
    const double mid = r.lo > 0 ? std::sqrt(r.lo * r.hi) : 0.5 * (r.lo + r.hi);
    out << Num(r.lo) << ' ' << Num(r.hi) << ' ' << Num(mid) << ' '
        << Num(r.pdf[0]) << ' ' << Num(r.pdf[1]) << ' ' << Num(r.cdf[0]) << ' '
        << Num(r.cdf[1]) << '\n';
  }
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace

void WriteCompareDats(const std::string& dir, const cmp::Comparison& c) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw std::runtime_error("cannot create directory '" + dir + "'");
  }
  const std::filesystem::path base(dir);
  const std::string index_path = (base / "compare.tsv").string();
  std::ofstream index(index_path);
  index << "# name\tfile\tbase_samples\tnew_samples\tks\twasserstein_ns\tfrom"
           "\tpoint\n";
  std::set<std::string> used;
  for (const cmp::PointComparison& p : c.points) {
    std::string name = SafeFileName(p.id, "point");  // lat_send_size_8
    // Ids are unique, their file names need not be ("a b" and "a_b").
    while (!used.insert(name).second) name += "_";
    const std::string file = "compare_" + name + ".dat";
    WritePoint((base / file).string(), p);
    index << name << '\t' << file << '\t' << p.count[0] << '\t' << p.count[1]
          << '\t' << Num(p.ks) << '\t' << Num(p.wasserstein_ns) << '\t'
          << p.from << '\t' << p.id << '\n';
  }
  if (!index) throw std::runtime_error("cannot write '" + index_path + "'");
}

}  // namespace verbsemu::plot
