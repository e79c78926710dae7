// Embeds src/interp/numeric.hpp (the interpreter's scalar semantics) with the assembler's .incbin. Including the header as well makes the build system
// record it as a dependency of this file, so the embedded copy is rebuilt whenever the header changes.
#include "lower/prelude.hpp"

#include "interp/numeric.hpp"  // dependency tracking only

extern "C" const char steptp_numeric_hpp_begin[];
extern "C" const char steptp_numeric_hpp_end[];

__asm__(".section .rodata\n"
        ".global steptp_numeric_hpp_begin\n"
        ".global steptp_numeric_hpp_end\n"
        "steptp_numeric_hpp_begin:\n"
        ".incbin \"" STEPTP_SOURCE_DIR "/src/interp/numeric.hpp\"\n"
        "steptp_numeric_hpp_end:\n"
        ".byte 0\n"
        ".previous\n");

namespace steptp::lower {

std::string_view numeric_header_text() {
  return {steptp_numeric_hpp_begin, static_cast<std::size_t>(steptp_numeric_hpp_end - steptp_numeric_hpp_begin)};
}

}  // namespace steptp::lower
