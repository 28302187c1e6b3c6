#pragma once
// Quoting names taken from files (tensor names, external-data locations, paths) in
// messages. Such a name is untrusted: a NUL byte would cut the message short where it is
// printed as a C string, and control bytes would reach the user's terminal. Quote shows
// every byte and hides none.

#include <string>
#include <string_view>

namespace onnxopt {

// `text` between single quotes: printable ASCII and valid UTF-8 sequences of printable
// characters as they are; '\'' and '\\' preceded by a backslash; \n, \r and \t as those
// two-character escapes; every other byte (controls, DEL, invalid UTF-8, C1 controls) as
// \xHH. Distinct texts give distinct quotations.
std::string Quote(std::string_view text);

}  // namespace onnxopt
