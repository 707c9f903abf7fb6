// The knobs whose value names a file to read: the topology's link classes
// (VERBSEMU_TOPOLOGY) and the contention penalties (VERBSEMU_PENALTIES, a
// model's name or a penalties file; or VERBSEMU_FABRIC=penalty:P). Their
// parsers, for the knob table (knobs.cc): each reads and checks the whole file
// once, at start-up.
#ifndef VERBSEMU_SETTINGS_FILE_KNOBS_H_
#define VERBSEMU_SETTINGS_FILE_KNOBS_H_

#include <string>
#include <string_view>

#include "settings/knobs.h"

namespace verbsemu::shim {

bool ApplyPenalties(std::string_view t, Settings* s, std::string* why);
// VERBSEMU_FABRIC: egress, links, penalty; penalty:P (P as for
// VERBSEMU_PENALTIES) and ib-hol (penalty:ib-hol) name the penalties too,
// which VERBSEMU_PENALTIES then must not.
bool ApplyFabric(std::string_view t, Settings* s, std::string* why);
bool ApplyTopology(std::string_view t, Settings* s, std::string* why);

}  // namespace verbsemu::shim

#endif  // VERBSEMU_SETTINGS_FILE_KNOBS_H_
