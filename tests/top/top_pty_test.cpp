// `wgpt top` on a pseudo-terminal, driven by keys: it scans a folder with a good and a broken
// model, shows why the broken one cannot run, runs the good one and shows its tokens per second,
// then quits and gives the terminal back.
//
//   wgpt_top_pty_test WGPT_BINARY SOURCE_DIR
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "top/pty_session.h"

namespace wgpt::test {
namespace {

std::string wgpt_binary, source_dir;
using namespace std::chrono_literals;

class TopDashboard : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ =
        std::filesystem::temp_directory_path() / ("wgpt-top-pty-" + std::to_string(::getpid()));
    std::filesystem::remove_all(folder_);
    const auto fixture = std::filesystem::path(source_dir) / "tests/fixtures/hf/char-tiny";
    std::filesystem::create_directories(folder_ / "good");
    std::filesystem::create_directories(folder_ / "broken");
    for (const char* name : {"config.json", "vocab.json", "model.safetensors"}) {
      std::filesystem::copy_file(fixture / name, folder_ / "good" / name);
    }
    std::filesystem::copy_file(fixture / "model.safetensors", folder_ / "broken/model.safetensors");
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::filesystem::path folder_;
};

TEST_F(TopDashboard, RunsAModelAndShowsItsTokensPerSecond) {
  PtySession session({wgpt_binary, "top", "--path", folder_.string(), "--backend", "cpu", "-n",
                      "30", "--prompt", "ROMEO:"},
                     {"TERM=xterm", "LC_ALL=C.UTF-8"}, 50, 200);
  ASSERT_TRUE(session.wait_for(std::regex("models \\(2\\)"), 60s)) << session.text();
  // Sorted by path: the broken model comes first and says why it cannot run (the screen is wide
  // enough that no line the test reads wraps).
  ASSERT_TRUE(session.wait_for(std::regex("not runnable: no config\\.json beside it"), 10s))
      << session.text();
  session.send("j");  // the good model
  ASSERT_TRUE(session.wait_for(std::regex("runnable: \\[enter\\] runs it"), 10s)) << session.text();
  session.send("\r");
  // Ctrl-L repaints the whole screen, so the text below comes whole however ncurses would have
  // sent only what changed.
  std::optional<std::smatch> done;
  for (int attempt = 0; attempt < 240 && !done; ++attempt) {
    session.mark();
    session.send("\x0c");
    done = session.wait_for(std::regex("done: 30 tokens, ([0-9.]+) tok/s average"), 500ms);
  }
  ASSERT_TRUE(done) << "no finished run on the screen: " << session.text();
  EXPECT_GT(std::stod((*done)[1]), 0.0);
  // The run may have finished in an update of only what changed, after the repaint asked for
  // above: one more repaint, of the finished run, for the panes read below.
  session.mark();
  session.send("\x0c");
  ASSERT_TRUE(session.wait_for(std::regex("done: 30 tokens"), 10s)) << session.text();
  const auto rates = session.wait_for(std::regex("([0-9.]+) instant ([0-9.]+) mean"), 5s);
  ASSERT_TRUE(rates) << session.text();
  EXPECT_GT(std::stod((*rates)[2]), 0.0);
  EXPECT_TRUE(session.wait_for(std::regex("first tok [0-9.]+ ms"), 5s)) << session.text();
  EXPECT_TRUE(session.wait_for(std::regex("backend cpu \\(the reference\\)"), 5s))
      << session.text();
  EXPECT_TRUE(session.wait_for(std::regex("host CPU"), 5s)) << session.text();
  EXPECT_TRUE(session.wait_for(std::regex("ROMEO:"), 5s)) << session.text();  // the output pane

  session.send("q");
  const auto status = session.wait_exit(20s);
  ASSERT_TRUE(status) << "wgpt top did not quit on q";
  EXPECT_EQ(*status, 0);
}

}  // namespace
}  // namespace wgpt::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: wgpt_top_pty_test WGPT_BINARY SOURCE_DIR\n");
    return 2;
  }
  wgpt::test::wgpt_binary = argv[1];
  wgpt::test::source_dir = argv[2];
  return RUN_ALL_TESTS();
}
