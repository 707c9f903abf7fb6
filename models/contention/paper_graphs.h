// The named graphs of Martinasso & Mehaut (Euro-Par 2011), Figs. 2-4, as
// reconstructed from the paper's numbers (the figures are pictures: these
// edge lists are the ones, up to relabelling, consistent with every
// printed number), with the paper's alpha and message size: the tests'
// data and verbsbench contend's mm2011 set.
#ifndef VERBSEMU_MODELS_CONTENTION_PAPER_GRAPHS_H_
#define VERBSEMU_MODELS_CONTENTION_PAPER_GRAPHS_H_

#include <string>

#include "models/contention/graph.h"

namespace verbsemu::contention::paper {

// "1.82 GB/s" (GiB/s): seconds per byte; messages of "20 MB" (MiB).
inline constexpr double kAlpha = 5.105e-10;
inline constexpr double kBytes = 20.0 * 1024 * 1024;
inline constexpr double kTref = kAlpha * kBytes;  // 0.010706 s

inline constexpr const char* kFig2Graph1 = "a>b,a>c,a>d";
inline constexpr const char* kFig2Graph2 = "b>a,b>x,c>a,c>y";
inline constexpr const char* kFig2Graph3 = "a>b,a>c,a>d,d>b,d>c";
inline constexpr const char* kFig2Graph4 = "a>b,a>c,d>b,e>c";
// Edges a..f in this order.
inline constexpr const char* kFig3 = "X>P,X>R,X>S,Y>P,Y>Q,Z>Q";
// Edges a..e in this order.
inline constexpr const char* kFig4A = "X>P,X>Q,C>Q,D>Q,E>P";
inline constexpr const char* kFig4B = "X>P,X>Q,C>P,D>P,E>P";

inline Graph Parse(const std::string& text) {
  std::string why;
  return ParseGraph(text, &why).value();
}

}  // namespace verbsemu::contention::paper

#endif  // VERBSEMU_MODELS_CONTENTION_PAPER_GRAPHS_H_
