#include "models/contention/penalty_file.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace verbsemu::contention {
namespace {

// A breach of the format; its text is the line the reader returns.
struct Bad : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<double> ParseRho(std::string_view list) {
  std::vector<double> rho;
  while (true) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    double v = 0;
    const auto [end, ec] =
        std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || !(v >= 1) ||
        v > kMaxPenalty)
      throw Bad("rho: '" + std::string(item.substr(0, 24)) +
                "' is not a number in [1, 1e6]");
    rho.push_back(v);
    if (comma == std::string_view::npos) return rho;
    list.remove_prefix(comma + 1);
  }
}

void ReadShape(std::string_view rest, PenaltyFile* f) {
  const std::size_t space = rest.find(' ');
  if (space == std::string_view::npos ||
      !rest.substr(space + 1).starts_with("rho="))
    throw Bad("a shape is 'shape FORM rho=R,R,...'");
  const std::string form(rest.substr(0, space));
  std::string why;
  const auto g = ParseGraph(form, &why);
  if (!g) throw Bad("shape '" + form.substr(0, 64) + "': " + why);
  const auto canonical = Canonicalize(*g, &why);
  if (!canonical) throw Bad("shape '" + form.substr(0, 64) + "': " + why);
  if (canonical->form != form)
    throw Bad("shape '" + form.substr(0, 64) + "' is not in canonical form (" +
              canonical->form.substr(0, 64) + ")");
  std::vector<double> rho = ParseRho(rest.substr(space + 5));
  if (static_cast<int>(rho.size()) != g->edge_count())
    throw Bad("shape " + form + " has " + std::to_string(g->edge_count()) +
              " edges and " + std::to_string(rho.size()) + " penalties");
  if (f->shapes.size() >= kMaxPenaltyShapes)
    throw Bad("more than " + std::to_string(kMaxPenaltyShapes) + " shapes");
  if (!f->shapes.emplace(form, std::move(rho)).second)
    throw Bad("shape " + form + " listed twice");
}

void ReadLine(std::string_view line, PenaltyFile* f) {
  if (line.empty() || line.starts_with('#')) return;
  if (line.starts_with("model ")) {
    const std::string name(line.substr(6));
    if (f->model) throw Bad("a second 'model' line");
    f->model = FindModel(name);
    if (!f->model)
      throw Bad("model '" + name.substr(0, 32) + "' is not one of " +
                ModelNames());
    return;
  }
  if (line.starts_with("shape ")) return ReadShape(line.substr(6), f);
  throw Bad(
      "expected 'model NAME' or 'shape FORM rho=...', a comment or "
      "nothing");
}

void CheckHeader(std::string_view first) {
  if (first == kPenaltyHeader) return;
  if (first.starts_with(kPenaltyHeaderFamily))
    throw Bad("line 1: penalties file version '" +
              std::string(first.substr(sizeof kPenaltyHeaderFamily - 1, 16)) +
              "', this verbsemu reads v1: export it again");
  throw Bad(std::string("line 1: not a penalties file (the first line must "
                        "be '") +
            kPenaltyHeader + "')");
}

PenaltyFile Read(std::string_view text) {
  if (text.size() > kMaxPenaltyFileBytes)
    throw Bad("larger than 1 MiB: not a penalties file");
  for (const char c : text)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f)
      throw Bad("a control character: not a penalties file");
  PenaltyFile f;
  int number = 0;
  while (!text.empty() || number == 0) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++number;
    if (number == 1) {
      CheckHeader(line);
      continue;
    }
    try {
      ReadLine(line, &f);
    } catch (const Bad& e) {
      throw Bad("line " + std::to_string(number) + ": " + e.what());
    }
  }
  if (!f.model) throw Bad("no 'model NAME' line");
  return f;
}

}  // namespace

std::vector<double> PenaltyFile::operator()(const Graph& g) const {
  std::string why;
  const auto canonical = shapes.empty() ? std::nullopt : Canonicalize(g, &why);
  if (canonical) {
    const auto it = shapes.find(canonical->form);
    if (it != shapes.end()) {
      std::vector<double> rho(g.edge_count());
      for (std::size_t k = 0; k < it->second.size(); ++k)
        rho[canonical->edge_order[k]] = it->second[k];
      return rho;
    }
  }
  return model->penalties(g);
}

std::optional<PenaltyFile> ParsePenaltyFile(std::string_view text,
                                            std::string* why) {
  try {
    return Read(text);
  } catch (const Bad& e) {
    *why = e.what();
  }
  return std::nullopt;
}

std::string WritePenaltyFile(const PenaltyFile& f) {
  std::string text = std::string(kPenaltyHeader) + "\nmodel " +
                     std::string(f.model->name) + "\n";
  for (const auto& [form, rho] : f.shapes) {
    text += "shape " + form + " rho=";
    for (std::size_t k = 0; k < rho.size(); ++k) {
      char value[32];
      std::snprintf(value, sizeof value, "%s%.6g", k ? "," : "", rho[k]);
      text += value;
    }
    text += "\n";
  }
  return text;
}

}  // namespace verbsemu::contention
