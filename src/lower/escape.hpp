// The only way a string from outside (a task's workload or suite label, an ONNX file or graph name, a config value,
// an LLM reply) may enter generated code: one escaping function per target language. Each returns a complete string
// literal (quotes included) made of printable ASCII only, so it can stand in code or at the end of a `//` or `#`
// comment without ending the comment, splicing lines, or closing the literal early.
#pragma once
#include <string>
#include <string_view>

namespace steptp::lower {

/// C++ string literal for the `c` and `cuda` targets (CUDA C++ is lexed as C++). Bytes 0x20-0x7E stay as they are
/// except `"`, `\` and `?` (backslash-escaped: `\?` leaves no trigraph such as `??/` in the text); every
/// other byte (controls, DEL, each byte of a UTF-8 sequence) is a three-digit octal escape `\ooo`, which never
/// swallows a following digit. Example: `a"b\n` -> `"a\"b\012"`.
std::string cpp_string_literal(std::string_view s);

/// Python string literal for the `tir` target (TVMScript is Python). Bytes 0x20-0x7E stay except `"` and `\`
/// (backslash-escaped); every other byte is `\xHH` (the code point U+00HH). A single `"`-quoted literal with no
/// newline cannot start or end a triple-quoted string. Example: `a"b\n` -> `"a\"b\x0a"`.
std::string python_string_literal(std::string_view s);

}  // namespace steptp::lower
