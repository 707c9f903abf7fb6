#include "man/knobs_page.h"

namespace verbsemu::man {

std::string Roff(std::string_view text) {
  std::string out;
  if (!text.empty() && (text[0] == '.' || text[0] == '\'')) out = "\\&";
  for (const char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

constexpr std::string_view kHead = R"(.SH NAME
verbsemu \- settings of libverbsemu.so, the RDMA latency and bandwidth emulator
.SH SYNOPSIS
.BI LD_PRELOAD= PREFIX /lib/verbsemu/libverbsemu.so
.RI [ VARIABLE = VALUE ...]
.I program
.br
.B verbsemu run
.RI [ flags ]
.B \-\-
.I program
.SH DESCRIPTION
libverbsemu.so, preloaded under an unmodified libibverbs program, adds
latency and takes away bandwidth on a real RDMA device.
It reads its settings from the environment variables below when the
program starts;
.BR "verbsemu run" " and " "verbsemu env"
take each as the flag named with it.
A bad value:
.B verbsemu run
prints one line naming the variable and what it accepts and does not
start the program (exit 2); the preloaded shim prints the same line once
and leaves the process unemulated.
.SH SETTINGS
)";

constexpr std::string_view kTail = R"(.SH FILES
.TP
.I PREFIX/lib/verbsemu/libverbsemu.so
the shim
.BR "verbsemu run" " preloads (found from the launcher's own path, " PREFIX/bin/verbsemu ).
.SH SEE ALSO
.BR verbsemu (1),
.BR verbsbench (1),
.BR ld.so (8)
)";

}  // namespace

std::string KnobsPage(std::span<const shim::Knob> knobs,
                      std::string_view version) {
  std::string page =
      ".TH VERBSEMU 7 \"\" \"" + Roff(version) + "\" \"verbsemu manual\"\n";
  page += kHead;
  for (const shim::Knob& k : knobs) {
    page += ".TP\n.BI " + Roff(k.env) + " = " + Roff(k.metavar) + "\n";
    page += Roff(k.effect) + ".\n";
    page +=
        ".br\nFlag: \\fB" + Roff(k.flag) + "\\fR " + Roff(k.metavar) + ".\n";
    page += ".br\nAccepts: " + Roff(k.accepts) + ".\n";
    page += ".br\nUnset: " + Roff(k.fallback) + ".\n";
  }
  page += kTail;
  return page;
}

}  // namespace verbsemu::man
