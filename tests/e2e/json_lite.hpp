// A small JSON reader for checking the run report, so that the tests need no
// JSON library. Accepts standard JSON (RFC 8259); reports the first error.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace e2e::json {

struct Value {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::map<std::string, Value> object;

    bool is_number() const { return kind == Kind::Number; }
    bool is_array() const { return kind == Kind::Array; }
    bool is_object() const { return kind == Kind::Object; }
    // Member of an object, or nullptr.
    const Value *get(const std::string &key) const;
};

// Parses text; on error returns nullopt and sets *error.
std::optional<Value> parse(const std::string &text, std::string *error);

} // namespace e2e::json
