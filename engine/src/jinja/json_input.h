#pragma once
// JSON → template values: conversations and tool lists arrive as JSON (an HF chat, a test's
// golden file), read with ordered_json so that objects keep their order, as Python's dicts do.
// Strings are marked as user text when `fromUser` (a conversation's contents).

#include <nlohmann/json.hpp>

#include "jinja/value.h"

namespace inferlens::jinja {

Value valueFromJson(const nlohmann::ordered_json& json, bool fromUser);

}  // namespace inferlens::jinja
