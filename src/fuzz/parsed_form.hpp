// The two shapes of one LEIR expression tree. The *parsed form* is what ir::parse_program builds: every parenthesis
// is an explicit Group node and every literal keeps its spelling. The *synthesized form* is what transformations
// build: no groups and no spellings; the printer adds exactly the parentheses that precedence requires (LEIR.md
// §9). The fuzzer generates parsed forms, so that parse(print(t)) == t must hold, and checks that the synthesized
// form prints the same text.
#pragma once
#include "ir/ast.hpp"

namespace steptp::fuzz {

/// Parsed form of a synthesized expression: wraps every operand that the printer would parenthesise (LEIR.md §9) in
/// a Group node and gives every literal its canonical spelling. Negative literals become unary minus.
ir::Expr to_parsed_form(const ir::Expr& e);
void to_parsed_form(ir::Program& p);

/// The inverse: removes Group nodes and literal spellings (the form transformations build). Printing it must give
/// the same text as printing the parsed form; the differential driver checks that.
ir::Expr to_synthesized_form(const ir::Expr& e);
void to_synthesized_form(ir::Program& p);

}  // namespace steptp::fuzz
