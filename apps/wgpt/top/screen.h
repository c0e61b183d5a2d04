#pragma once
// Drawing primitives for `wgpt top` over ncurses: framed panes, clipped text, gauges and a
// sparkline, in Unicode where the terminal's locale is UTF-8 and in ASCII otherwise.

#include <string>
#include <string_view>
#include <vector>

namespace wgpt::top {

enum class Tone { normal, title, good, warn, bad, dim };

// Keys Screen::key() returns besides characters (ncurses' codes, named here so that only this
// pair of files includes curses.h, whose macros clash with ordinary names).
struct Keys {
  static const int none, up, down, page_up, page_down, enter;
};

// A rectangle of the screen.
struct Area {
  int y = 0, x = 0, height = 0, width = 0;
};

class Screen {
 public:
  // Takes over the terminal (raw keys, no echo, hidden cursor, colours where there are some).
  Screen();
  // Gives the terminal back as it was.
  ~Screen();
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  int lines() const;
  int columns() const;
  bool unicode() const { return unicode_; }

  // The next key, or -1 after `timeout_ms` without one.
  int key(int timeout_ms);
  void clear();
  void show();
  // Repaints the whole terminal on the next show() (Ctrl-L: after something else wrote on it).
  void repaint();

  // A frame around `area` with a title; returns the area inside it.
  Area frame(const Area& area, std::string_view title, bool focused = false);
  // Text at (y, x) of `area`, cut to the area's width (in characters, not bytes).
  void text(const Area& area, int y, int x, std::string_view text, Tone tone = Tone::normal,
            bool reverse = false);
  // "[####      ]" filled to `fraction` (0..1), `width` characters wide.
  std::string gauge(double fraction, int width) const;
  // The last `width` values as bars scaled to the largest.
  std::string sparkline(const std::vector<double>& values, int width) const;
  // "✓" or "✗" (or "y" / "n" in ASCII).
  std::string_view mark(bool yes) const;

 private:
  bool unicode_ = false;
  bool colours_ = false;
};

// The first `width` characters of UTF-8 text, as bytes.
std::string_view first_characters(std::string_view text, size_t width);
// Text wrapped to `width` characters per line: at line breaks, at the last space that fits, and
// within a word only when it is longer than a line.
std::vector<std::string> wrap(std::string_view text, size_t width);

}  // namespace wgpt::top
