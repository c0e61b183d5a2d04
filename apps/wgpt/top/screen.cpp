#include "top/screen.h"

// Functions, not macros: ncurses' macros would rewrite calls such as screen.clear().
#define NCURSES_NOMACROS
#include <curses.h>
#include <langinfo.h>

#include <algorithm>
#include <clocale>
#include <cstring>

namespace wgpt::top {
namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

int colour_pair(Tone tone) {
  switch (tone) {
    case Tone::title:
      return 1;
    case Tone::good:
      return 2;
    case Tone::warn:
      return 3;
    case Tone::bad:
      return 4;
    default:
      return 0;
  }
}

}  // namespace

const int Keys::none = ERR, Keys::up = KEY_UP, Keys::down = KEY_DOWN, Keys::page_up = KEY_PPAGE,
          Keys::page_down = KEY_NPAGE, Keys::enter = KEY_ENTER;

std::string_view first_characters(std::string_view text, size_t width) {
  size_t bytes = 0, characters = 0;
  while (bytes < text.size()) {
    if (!continuation_byte(text[bytes]) && characters++ == width) break;
    ++bytes;
  }
  return text.substr(0, bytes);
}

std::vector<std::string> wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  if (width == 0) return lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    do {
      std::string_view piece = first_characters(line, width);
      // At the last space that fits, when a word would otherwise be cut.
      const size_t space = piece.rfind(' ');
      const bool cuts_a_word = piece.size() < line.size() && line[piece.size()] != ' ';
      if (cuts_a_word && space != std::string_view::npos && space > 0)
        piece = piece.substr(0, space);
      lines.emplace_back(piece);
      line.remove_prefix(piece.size());
      if (!line.empty() && line.front() == ' ') line.remove_prefix(1);  // the space it broke at
    } while (!line.empty());
    start = end + 1;
  }
  return lines;
}

Screen::Screen() {
  std::setlocale(LC_ALL, "");
  unicode_ = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  initscr();
  raw();  // Ctrl-C arrives as a key, so the terminal is always given back
  noecho();
  keypad(stdscr, TRUE);
  set_escdelay(25);  // Esc cancels at once, not after a second's wait for an escape sequence
  curs_set(0);
  if (has_colors()) {
    colours_ = true;
    start_color();
    use_default_colors();
    init_pair(1, COLOR_CYAN, -1);
    init_pair(2, COLOR_GREEN, -1);
    init_pair(3, COLOR_YELLOW, -1);
    init_pair(4, COLOR_RED, -1);
  }
}

Screen::~Screen() { endwin(); }

int Screen::lines() const { return LINES; }
int Screen::columns() const { return COLS; }

int Screen::key(int timeout_ms) {
  timeout(timeout_ms);
  return getch();
}

void Screen::clear() { erase(); }
void Screen::show() { refresh(); }
void Screen::repaint() { clearok(curscr, TRUE); }

Area Screen::frame(const Area& area, std::string_view title, bool focused) {
  if (area.height < 2 || area.width < 2) return {area.y, area.x, 0, 0};
  const chtype attribute = focused ? A_BOLD : A_NORMAL;
  attron(attribute);
  mvhline(area.y, area.x + 1, ACS_HLINE, area.width - 2);
  mvhline(area.y + area.height - 1, area.x + 1, ACS_HLINE, area.width - 2);
  mvvline(area.y + 1, area.x, ACS_VLINE, area.height - 2);
  mvvline(area.y + 1, area.x + area.width - 1, ACS_VLINE, area.height - 2);
  mvaddch(area.y, area.x, ACS_ULCORNER);
  mvaddch(area.y, area.x + area.width - 1, ACS_URCORNER);
  mvaddch(area.y + area.height - 1, area.x, ACS_LLCORNER);
  mvaddch(area.y + area.height - 1, area.x + area.width - 1, ACS_LRCORNER);
  attroff(attribute);
  const Area inside{area.y + 1, area.x + 1, area.height - 2, area.width - 2};
  std::string label = " ";
  label.append(title).append(" ");
  text({area.y, area.x + 2, 1, area.width - 4}, 0, 0, label, Tone::title);
  return inside;
}

void Screen::text(const Area& area, int y, int x, std::string_view text, Tone tone, bool reverse) {
  if (y < 0 || y >= area.height || x >= area.width) return;
  const std::string piece(first_characters(text, static_cast<size_t>(area.width - x)));
  chtype attribute = reverse ? A_REVERSE : A_NORMAL;
  if (tone == Tone::dim) attribute |= A_DIM;
  if (colours_ && colour_pair(tone)) attribute |= COLOR_PAIR(colour_pair(tone));
  attron(attribute);
  mvaddstr(area.y + y, area.x + x, piece.c_str());
  attroff(attribute);
}

std::string Screen::gauge(double fraction, int width) const {
  const int inner = std::max(0, width - 2);
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * inner + 0.5);
  std::string bar = "[";
  for (int i = 0; i < inner; ++i)
    bar += i < filled ? (unicode_ ? "█" : "#") : (unicode_ ? "·" : " ");
  return bar + "]";
}

std::string Screen::sparkline(const std::vector<double>& values, int width) const {
  static const char* const kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static const char kAscii[] = "_.-:=+*#";
  const size_t count = std::min(values.size(), static_cast<size_t>(std::max(0, width)));
  const auto shown = values.end() - static_cast<ptrdiff_t>(count);
  const double largest = count ? *std::max_element(shown, values.end()) : 0;
  std::string line;
  for (auto it = shown; it != values.end(); ++it) {
    const int level =
        largest > 0 ? std::clamp(static_cast<int>(*it / largest * 7.0 + 0.5), 0, 7) : 0;
    line += unicode_ ? std::string(kBlocks[level]) : std::string(1, kAscii[level]);
  }
  return line;
}

std::string_view Screen::mark(bool yes) const {
  if (unicode_) return yes ? "✓" : "✗";
  return yes ? "y" : "n";
}

}  // namespace wgpt::top
