// From the ranks' timings to the measurement file and the table: each
// run's edges from their two sides, the graphs as the contract
// (models/contention/contend_data.h) holds them, alpha and the port rate
// from the one-edge graphs, and per graph and edge T = recv_end − planned
// start: median, minimum, maximum and T/T_ref (T_ref = alpha · bytes).
#ifndef VERBSBENCH_CONTEND_SUMMARY_H_
#define VERBSBENCH_CONTEND_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/contention/contend_data.h"
#include "verbsbench/contend/graph_set.h"

namespace verbsbench::contend {

using verbsemu::contention::ContendData;
using verbsemu::contention::EdgeTiming;
using verbsemu::contention::MeasuredGraph;

// One side of one edge in one run, after that rank's own start time.
struct SideTime {
  int edge = 0;
  bool send = true;
  std::int64_t start_ns = 0, end_ns = 0;
  std::vector<std::int64_t> completions_ns{};  // sender, --steady: each WR's
};

// The run's edges from both sides. Throws std::runtime_error when an edge
// lacks a side or has one twice.
std::vector<EdgeTiming> MergeSides(int edges, const std::vector<SideTime>& s);

// The planned graph as the contract holds it, without runs (vertex v on
// rank v). Throws std::invalid_argument for a graph it cannot hold.
MeasuredGraph Measured(const PlannedGraph& p);

// Seconds per byte: the median T/bytes over every run of the one-edge
// graphs; nullopt without one.
std::optional<double> Alpha(const ContendData& d);
// Bytes per second for params.port_rate_Bps: 1/alpha, else the fastest
// edge's bytes/T; 1 when there is no run.
double PortRate(const ContendData& d);

struct EdgeRow {
  std::string graph, transfer;
  int edge = 0;
  std::int64_t bytes = 0;
  int runs = 0;
  double median_ns = 0, min_ns = 0, max_ns = 0;
  std::optional<double> over_ref;  // median T / (alpha · bytes)
};
std::vector<EdgeRow> Summarize(const ContendData& d);
void PrintTable(const std::vector<EdgeRow>& rows, std::ostream& out);

// Every run's edges as CSV, one row per graph, run and edge, under a
// header: graph, canonical, rep, block, edge, transfer, src_rank,
// dst_rank, bytes, start_offset_ns, send_start_ns, send_end_ns,
// recv_start_ns, recv_end_ns, t_ns (recv_end_ns - start_offset_ns, the T
// of the table). Times in ns after the run's common start; fields with a
// comma or a quote are quoted (RFC 4180).
void WriteCsv(const ContendData& d, std::ostream& out);

}  // namespace verbsbench::contend

#endif  // VERBSBENCH_CONTEND_SUMMARY_H_
