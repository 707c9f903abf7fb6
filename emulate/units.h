// The one parser for durations, sizes and rates in verbsemu: the shim's
// settings, the launcher's flags and verbsbench's options all read text
// through it, so every tool accepts exactly the same spellings.
//
// Conventions (those of perftest and rdma-core users):
//   sizes      binary: K = KiB = 1024, M = MiB, G = GiB; a bare number is
//   bytes. rates      bits are decimal, as link speeds are: Gbit/s = Gb/s = 1e9
//   bit/s;
//              bytes per second binary: MiB/s, GiB/s.
//   durations  ns, us (or µs), ms, s.
// "KB", "MB", "GB" and "MB/s", "GB/s" are refused as ambiguous (1000 or
// 1024?): the error says how to write either meaning.
#ifndef VERBSEMU_EMULATE_UNITS_H_
#define VERBSEMU_EMULATE_UNITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace verbsemu::units {

// Every parser takes the whole text (no surrounding spaces, no sign, no
// exponent) and returns nullopt on anything it does not accept; `why`, when
// given, receives what was wrong and how to write it, as a phrase that fits
// after "'TEXT' is not accepted: ".

// "2us", "1500ns", "0.5ms", "1s"; a bare "0" is accepted.
std::optional<double> ParseDurationNs(std::string_view text,
                                      std::string* why = nullptr);

// "64", "4K", "4KiB", "1M", "1MiB", "2G", "512B": whole bytes.
std::optional<uint64_t> ParseBytes(std::string_view text,
                                   std::string* why = nullptr);

// "25Gbit/s", "25Gb/s", "800Mbps", "3GiB/s", "100MiB/s": bits per second,
// from 1 bit/s to 1000 Tbit/s.
std::optional<double> ParseBitsPerS(std::string_view text,
                                    std::string* why = nullptr);

// "40%", "12.5%": a share in (0, 100], returned as a fraction in (0, 1].
std::optional<double> ParsePercent(std::string_view text,
                                   std::string* why = nullptr);

// Short forms for reports: "2us", "1.5ms", "40ns"; "25Gbit/s", "800Mbit/s"
// (six significant digits; a rate ParseBitsPerS accepts reads back).
std::string FormatNs(double ns);
std::string FormatBitsPerS(double bits_per_s);

}  // namespace verbsemu::units

#endif  // VERBSEMU_EMULATE_UNITS_H_
