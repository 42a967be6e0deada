#pragma once
// JSON → template values: conversations and tool lists arrive as JSON (an HF chat, a test's
// golden file), read with ordered_json so that objects keep their order, as Python's dicts do.

#include <nlohmann/json.hpp>

#include "jinja/value.h"

namespace inferlens::jinja {

// Every string, object keys included, is marked as user text when `fromUser`.
Value valueFromJson(const nlohmann::ordered_json& json, bool fromUser);

// A conversation: a list of messages whose field names and `role` are the template's text (a
// template may build a special token from the role: '<|' + message['role'] + '|>'), and whose
// other values (content, tool calls and their arguments, keys included) are what people typed.
Value messagesFromJson(const nlohmann::ordered_json& messages);

}  // namespace inferlens::jinja
