#include "jinja/json_input.h"

namespace inferlens::jinja {

Value valueFromJson(const nlohmann::ordered_json& json, bool fromUser) {
    if (json.is_string())
        return Value(TaggedText(json.get<std::string>(), fromUser));
    if (json.is_boolean())
        return Value(json.get<bool>());
    if (json.is_number_integer())
        return Value(json.get<int64_t>());
    if (json.is_number())
        return Value(json.get<double>());
    if (json.is_array()) {
        List items;
        for (const nlohmann::ordered_json& item : json)
            items.push_back(valueFromJson(item, fromUser));
        return Value(std::move(items));
    }
    if (json.is_object()) {
        auto dict = std::make_shared<Dict>();
        for (const auto& [key, item] : json.items())
            dict->set(Value(TaggedText(key, fromUser)), valueFromJson(item, fromUser));
        return Value(std::move(dict));
    }
    return Value::none();
}

Value messagesFromJson(const nlohmann::ordered_json& messages) {
    if (!messages.is_array())
        return valueFromJson(messages, true);
    List list;
    for (const nlohmann::ordered_json& message : messages) {
        if (!message.is_object()) {
            list.push_back(valueFromJson(message, true));
            continue;
        }
        auto dict = std::make_shared<Dict>();
        for (const auto& [key, item] : message.items())
            dict->set(key, valueFromJson(item, key != "role"));
        list.push_back(Value(std::move(dict)));
    }
    return Value(std::move(list));
}

}  // namespace inferlens::jinja
