// The lookup behind json_get (the shell tests' JSON reader): a JSON text and
// an optional JSON pointer in, what to print and the exit status out. Never
// throws: bad input is a status and a one-line message.
#ifndef VERBSBENCH_JSON_QUERY_H_
#define VERBSBENCH_JSON_QUERY_H_

#include <optional>
#include <string>
#include <string_view>

namespace verbsbench {

struct JsonQuery {
  // 0 ok, 1 invalid JSON, 3 pointer not found or malformed.
  int status = 0;
  std::string out;    // the value (strings unquoted) or the size, + "\n"
  std::string error;  // one line when status != 0
};

// Validates `text`; with `pointer`, returns the value there, or with
// `size` the number of elements of that array or object.
JsonQuery QueryJson(std::string_view text,
                    const std::optional<std::string>& pointer, bool size);

}  // namespace verbsbench

#endif  // VERBSBENCH_JSON_QUERY_H_
