#include "command_line.hpp"

namespace s4bxi {

std::optional<std::vector<std::string>> split_command_line(const std::string& text)
{
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else
        word.push_back(c);
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word)
        words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (quote != 0)
    return std::nullopt;
  if (in_word)
    words.push_back(word);
  return words;
}

} // namespace s4bxi
