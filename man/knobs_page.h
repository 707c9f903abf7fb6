// verbsemu(7): the settings of libverbsemu.so as a manual page (roff, man
// macros), one entry per row of the shim's knob table.
#ifndef VERBSEMU_MAN_KNOBS_PAGE_H_
#define VERBSEMU_MAN_KNOBS_PAGE_H_

#include <span>
#include <string>
#include <string_view>

#include "settings/knobs.h"

namespace verbsemu::man {

// `text` safe in a roff text line: backslashes and hyphens escaped, and a
// line that would start with a control character ('.' or '\'') guarded.
std::string Roff(std::string_view text);

// The page for `knobs`; `version` goes into the title line's footer.
std::string KnobsPage(std::span<const shim::Knob> knobs,
                      std::string_view version);

}  // namespace verbsemu::man

#endif  // VERBSEMU_MAN_KNOBS_PAGE_H_
