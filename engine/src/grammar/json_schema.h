#pragma once
// JSON Schema (a useful subset) to a grammar (grammar/grammar.h) whose sentences are JSON texts
// valid against the schema, so that constrained output always parses and validates:
//
//   type          object, array, string, number, integer, boolean, null (or a list of them)
//   object        properties, written in the schema's order — every listed property, and every
//                 required one (a required property without a schema takes any JSON value)
//   array         items, minItems, maxItems (at most 64 counted out)
//   string        minLength, maxLength (at most 64 counted out)
//   enum, const   exactly those values
//   anyOf, oneOf  any of the schemas (oneOf's "exactly one" is not checked)
//
// Numbers have at most two exponent digits, so that every number written fits a double. A schema
// without a type takes any JSON value. Annotations (title, description, default,
// examples, $schema, $id) are ignored; so are constraints the grammar cannot express here —
// pattern, format, minimum, maximum, multipleOf, uniqueItems, additionalProperties (no property
// beyond the listed ones is ever written). $ref, allOf, not and if/then/else are refused with an
// Error naming them, as is a schema that is not valid JSON.

#include <string>
#include <string_view>

namespace inferlens {

std::string grammarFromJsonSchema(std::string_view schema);

}  // namespace inferlens
