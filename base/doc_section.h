// A generated part of a doc page: the text between the markers
// "<!-- NAME:begin -->" (and its line end) and "<!-- NAME:end -->", which
// the tests that keep a page's table current compare with the table's
// generator.
#ifndef VERBSEMU_BASE_DOC_SECTION_H_
#define VERBSEMU_BASE_DOC_SECTION_H_

#include <string>
#include <string_view>

namespace verbsemu::base {

// The section NAME of the file at `path` into `*text`; false with a reason
// in `*error` (the file cannot be read, or a marker is missing or out of
// order).
bool DocSection(const std::string& path, std::string_view name,
                std::string* text, std::string* error);

}  // namespace verbsemu::base

#endif  // VERBSEMU_BASE_DOC_SECTION_H_
