#include "tools/plot/histogram_dat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "models/lop/contract.h"

namespace verbsemu::plot {
namespace {

using nlohmann::json;

std::string Scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();
}

// op=send size=8 ... from the scalar fields that identify a result.
std::string Identity(const json& obj) {
  // The run's keys, with the lop curve and point keys of the lop contract.
  namespace key = verbsbench::lop::key;
  static const char* kKeys[] = {key::kName, "mode",       key::kOp,
                                key::kSize, key::kInline, key::kPattern,
                                key::kSide, key::kP};
  std::string s;
  if (!obj.is_object()) return s;
  for (const char* k : kKeys) {
    if (obj.contains(k) && obj[k].is_primitive() && !obj[k].is_null()) {
      if (!s.empty()) s += ' ';
      s += std::string(k) + "=" + Scalar(obj[k]);
    }
  }
  return s;
}

double Number(const json& bin, const char* key, const std::string& where,
              bool required, double fallback) {
  if (!bin.contains(key) || bin[key].is_null()) {
    if (required) {
      throw std::runtime_error(where + ": a bin has no \"" + key + "\"");
    }
    return fallback;
  }
  if (!bin[key].is_number()) {
    throw std::runtime_error(where + ": bin \"" + key + "\" is not a number");
  }
  return bin[key].get<double>();
}

Histogram Parse(const json& owner, const json& parent,
                const std::string& pointer) {
  Histogram h;
  h.path = pointer.empty() ? "/" : pointer;
  h.name = SafeFileName(pointer, "root");
  h.label = pointer.empty() ? "run" : pointer.substr(1);
  std::string id = Identity(owner);
  if (id.empty()) id = Identity(parent);
  if (!id.empty()) h.label += " (" + id + ")";
  const std::string where = "histogram at " + h.path;
  bool have_pdf = true, have_cdf = true;
  for (const json& b : owner["histogram"]) {
    if (!b.is_object())
      throw std::runtime_error(where + ": a bin is not an object");
    Bin bin;
    bin.lo_ns = Number(b, "lo_ns", where, true, 0);
    bin.hi_ns = Number(b, "hi_ns", where, true, 0);
    const double count = Number(b, "count", where, true, 0);
    if (count < 0 || bin.hi_ns < bin.lo_ns) {
      throw std::runtime_error(where +
                               ": bin with negative count or hi_ns < lo_ns");
    }
    bin.count = static_cast<std::uint64_t>(count);
    have_pdf = have_pdf && b.contains("pdf") && b["pdf"].is_number();
    have_cdf = have_cdf && b.contains("cdf") && b["cdf"].is_number();
    bin.pdf = Number(b, "pdf", where, false, 0);
    bin.cdf = Number(b, "cdf", where, false, 0);
    h.total += bin.count;
    h.bins.push_back(bin);
  }
  std::stable_sort(
      h.bins.begin(), h.bins.end(),
      [](const Bin& a, const Bin& b) { return a.lo_ns < b.lo_ns; });
  std::uint64_t cum = 0;
  for (Bin& bin : h.bins) {
    cum += bin.count;
    const double t = h.total > 0 ? static_cast<double>(h.total) : 1.0;
    if (!have_pdf) bin.pdf = static_cast<double>(bin.count) / t;
    if (!have_cdf) bin.cdf = static_cast<double>(cum) / t;
  }
  return h;
}

std::string Escape(const std::string& key) {
  std::string s;
  for (char ch : key) {
    if (ch == '~') {
      s += "~0";
    } else if (ch == '/') {
      s += "~1";
    } else {
      s += ch;
    }
  }
  return s;
}

void Walk(const json& node, const json& parent, const std::string& pointer,
          std::vector<Histogram>& out) {
  if (node.is_object()) {
    if (node.contains("histogram") && node["histogram"].is_array()) {
      out.push_back(Parse(node, parent, pointer));
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it.key() == "histogram") continue;
      Walk(it.value(), node, pointer + "/" + Escape(it.key()), out);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      Walk(node[i], parent, pointer + "/" + std::to_string(i), out);
    }
  }
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

std::string SafeFileName(const std::string& s, const char* fallback) {
  std::string out;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
    if (ok) {
      out += ch;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? fallback : out;
}

nlohmann::json ParseRun(const std::string& text, const std::string& input) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    const auto p = what.find("] ");
    if (p != std::string::npos) what = what.substr(p + 2);
    throw std::runtime_error("'" + input + "' is not valid JSON: " + what);
  }
}

std::vector<Histogram> FindHistograms(const json& doc) {
  std::vector<Histogram> out;
  Walk(doc, json(), "", out);
  // Names must be unique file names.
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (out[i].name == out[j].name) out[i].name += "_" + std::to_string(i);
    }
  }
  return out;
}

void WriteHistogramDats(const std::string& dir,
                        const std::vector<Histogram>& hists) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw std::runtime_error("cannot create directory '" + dir + "'");
  }
  const std::filesystem::path base(dir);
  const std::string index_path = (base / "histograms.tsv").string();
  std::ofstream index(index_path);
  index << "# name\tfile\ttotal\tlabel\n";
  for (const Histogram& h : hists) {
    const std::string file = "hist_" + h.name + ".dat";
    const std::string path = (base / file).string();
    std::ofstream out(path);
    out << "# " << h.label << "\n# lo_ns hi_ns mid_ns count pdf cdf\n";
    for (const Bin& b : h.bins) {
      const double mid = b.lo_ns > 0 ? std::sqrt(b.lo_ns * b.hi_ns)
                                     : 0.5 * (b.lo_ns + b.hi_ns);
      out << Num(b.lo_ns) << ' ' << Num(b.hi_ns) << ' ' << Num(mid) << ' '
          << b.count << ' ' << Num(b.pdf) << ' ' << Num(b.cdf) << '\n';
    }
    if (!out) throw std::runtime_error("cannot write '" + path + "'");
    index << h.name << '\t' << file << '\t' << h.total << '\t' << h.label
          << '\n';
  }
  if (!index) throw std::runtime_error("cannot write '" + index_path + "'");
}

}  // namespace verbsemu::plot
