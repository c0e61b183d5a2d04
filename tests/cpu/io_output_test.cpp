// The one rule for every output (wgpt/io.h, "writing files"): temporary, checked writes, fsync,
// rename; special files never replaced; killed writers' temporaries tidied; several files of a
// directory replaced as one unit, finished by the next reader after a kill; one run per directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <functional>

#include "io_test_util.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

using test::read_text;
using test::ScratchDir;

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Names in `dir`, sorted.
std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

// A pid that no process has now (its temporaries are a dead writer's).
long dead_pid() {
  for (long pid = 4'000'000; pid > 1000; --pid) {
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return pid;
  }
  return 0;
}

TEST(OutputFile, ReplacesTheTargetOnlyOnCommit) {
  ScratchDir dir;
  write_text(dir / "out.txt", "old");
  {
    OutputFile file(dir / "out.txt");
    file.write(std::string_view("new"));
    EXPECT_EQ(read_text(dir / "out.txt"), "old");  // untouched until the commit
    file.commit();
  }
  EXPECT_EQ(read_text(dir / "out.txt"), "new");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(OutputFile, AnUncommittedFileLeavesTheTargetAndNoTemporary) {
  ScratchDir dir;
  write_text(dir / "out.txt", "old");
  {
    OutputFile file(dir / "out.txt");
    file.write(std::string_view("half"));
  }  // an exception on the way ends here
  EXPECT_EQ(read_text(dir / "out.txt"), "old");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"out.txt"});
}

TEST(OutputFile, KeepsThePermissionsOfTheFileItReplaces) {
  ScratchDir dir;
  write_text(dir / "secret", "old");
  ::chmod((dir / "secret").c_str(), 0600);
  write_file_atomically(dir / "secret", "new");
  struct stat info {};
  ASSERT_EQ(::stat((dir / "secret").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST(OutputFile, NeverReplacesWhatIsNotARegularFile) {
  ScratchDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  std::filesystem::create_directory(dir / "folder");
  write_text(dir / "real", "real");
  std::filesystem::create_symlink(dir / "real", dir / "link");
  EXPECT_NE(
      test::error_message([&] { write_file_atomically(dir / "fifo", "x"); }).find("it is a FIFO"),
      std::string::npos);
  EXPECT_NE(
      test::error_message([&] { write_file_atomically(dir / "folder", "x"); }).find("a directory"),
      std::string::npos);
  EXPECT_NE(test::error_message([&] {
              write_file_atomically(dir / "link", "x");
            }).find("a symbolic link"),
            std::string::npos);
  // A device node given as the output used to become a regular file.
  EXPECT_NE(test::error_message([&] {
              write_file_atomically("/dev/null", "x");
            }).find("cannot write /dev/null: it is a character device"),
            std::string::npos);
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  EXPECT_EQ(read_text(dir / "real"), "real");
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"fifo", "folder", "link", "real"}));
}

TEST(OutputFile, NamesAMissingDirectory) {
  ScratchDir dir;
  EXPECT_EQ(test::error_message([] { write_file_atomically("", "x"); }),
            "no output file was named");
  EXPECT_NE(test::error_message([&] {
              write_file_atomically(dir.path() / "", "x");
            }).find("so it is a directory's"),
            std::string::npos);
  EXPECT_NE(test::error_message([&] {
              write_file_atomically(dir / "none" / "x.txt", "x");
            }).find("the directory " + (dir / "none").string() + " does not exist"),
            std::string::npos);
}

TEST(OutputFile, RemovesTheTemporariesOfKilledWritersOfItsTarget) {
  ScratchDir dir;
  const long dead = dead_pid();
  ASSERT_NE(dead, 0);
  const std::string stale = "out.txt.tmp." + std::to_string(dead) + ".3";
  const std::string live = "out.txt.tmp." + std::to_string(::getppid()) + ".0";
  const std::string other = "other.txt.tmp." + std::to_string(dead) + ".0";
  for (const std::string& name : {stale, live, other}) write_text(dir / name, "x");
  write_file_atomically(dir / "out.txt", "new");
  EXPECT_EQ(listing(dir.path()), sorted({live, other, "out.txt"}));
  EXPECT_EQ(tidy_directory(dir.path()), 1u);  // the other output's, this time
  EXPECT_EQ(listing(dir.path()), sorted({live, "out.txt"}));
}

TEST(AppendToFile, AppendsAndRefusesSpecialFiles) {
  ScratchDir dir;
  append_to_file(dir / "log", "a\n");
  append_to_file(dir / "log", "b\n");
  EXPECT_EQ(read_text(dir / "log"), "a\nb\n");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_THROW(append_to_file(dir / "fifo", "x"), Error);
}

TEST(DirectoryUpdate, ReplacesItsFilesTogetherAndRemovesWhatItDrops) {
  ScratchDir dir;
  write_text(dir / "config.json", "old config");
  write_text(dir / "model.fzm", "old weights");
  write_text(dir / "keep.txt", "untouched");
  {
    DirectoryUpdate update(dir.path());
    update.add_text("config.json", "new config");
    update.add_text("model.safetensors", "new weights");
    update.remove("model.fzm");
    EXPECT_EQ(read_text(dir / "config.json"), "old config");
    update.commit();
  }
  EXPECT_EQ(read_text(dir / "config.json"), "new config");
  EXPECT_EQ(read_text(dir / "model.safetensors"), "new weights");
  EXPECT_EQ(listing(dir.path()),
            (std::vector<std::string>{"config.json", "keep.txt", "model.safetensors"}));
}

TEST(DirectoryUpdate, AnUncommittedUpdateChangesNothing) {
  ScratchDir dir;
  write_text(dir / "config.json", "old config");
  {
    DirectoryUpdate update(dir.path());
    update.add_text("config.json", "new config");
    update.remove("config.json");
  }
  EXPECT_EQ(read_text(dir / "config.json"), "old config");
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"config.json"});
}

TEST(DirectoryUpdate, RefusesToReplaceAFifoBeforeItsCommitPoint) {
  ScratchDir dir;
  write_text(dir / "config.json", "old config");
  ASSERT_EQ(::mkfifo((dir / "model.safetensors").c_str(), 0644), 0);
  EXPECT_THROW(
      {
        DirectoryUpdate update(dir.path());
        update.add_text("config.json", "new config");
        update.add_text("model.safetensors", "new weights");
        update.commit();
      },
      Error);
  EXPECT_EQ(read_text(dir / "config.json"), "old config");
}

// What a process killed just after an update's commit point leaves: some files renamed, the rest
// still temporaries, and the journal. The next reader finishes it.
TEST(DirectoryUpdate, AnUpdateCutShortByAKillIsFinishedByTheNextReader) {
  ScratchDir dir;
  const long dead = dead_pid();
  const std::string tmp = ".tmp." + std::to_string(dead) + ".";
  write_text(dir / "config.json", "new config");  // already renamed when the process died
  write_text(dir / ("model.safetensors" + tmp + "1"), "new weights");
  write_text(dir / "model.safetensors", "old weights");
  write_text(dir / "model.fzm", "old q4");
  write_text(dir / ".wgpt-update", "wgpt directory update 1\nrename\tconfig.json" + tmp +
                                       "0\tconfig.json\n" + "rename\tmodel.safetensors" + tmp +
                                       "1\tmodel.safetensors\nremove\tmodel.fzm\n");
  { DirectoryReader reading(dir.path()); }
  EXPECT_EQ(read_text(dir / "model.safetensors"), "new weights");
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"config.json", "model.safetensors"}));
}

TEST(DirectoryUpdate, TidyingFinishesAPendingUpdateBeforeRemovingTemporaries) {
  ScratchDir dir;
  const std::string temporary = "config.json.tmp." + std::to_string(dead_pid()) + ".0";
  write_text(dir / temporary, "new config");
  write_text(dir / "config.json", "old config");
  write_text(dir / ".wgpt-update",
             "wgpt directory update 1\nrename\t" + temporary + "\tconfig.json\n");
  EXPECT_EQ(tidy_directory(dir.path()), 0u);
  EXPECT_EQ(read_text(dir / "config.json"), "new config");
}

TEST(DirectoryUpdate, ADamagedJournalIsReportedNotGuessed) {
  ScratchDir dir;
  write_text(dir / ".wgpt-update", "something else\n");
  EXPECT_NE(test::error_message([&] {
              DirectoryReader reading(dir.path());
            }).find("is not a wgpt update journal"),
            std::string::npos);
}

TEST(OutputLock, ASecondRunIntoTheSameDirectoryFailsAtOnce) {
  ScratchDir dir;
  {
    OutputLock first(dir.path());
    EXPECT_NE(
        test::error_message([&] {
          OutputLock second(dir.path());
        }).find(" is being written by another wgpt run (pid " + std::to_string(::getpid()) + ")"),
        std::string::npos);
  }
  EXPECT_NO_THROW(OutputLock again(dir.path()));
}

TEST(ReadFile, OnlyRegularFilesOfABoundedSize) {
  ScratchDir dir;
  write_text(dir / "small", "12345");
  EXPECT_EQ(read_file(dir / "small", 5), "12345");
  EXPECT_NE(test::error_message([&] {
              read_file(dir / "small", 4, "a config");
            }).find("it holds 5 bytes, and a config is at most 4 bytes"),
            std::string::npos);
  // Opening a FIFO for reading would wait for a writer forever: it is refused before opening.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  EXPECT_NE(test::error_message([&] { read_file(dir / "fifo", 100); }).find("it is a FIFO"),
            std::string::npos);
  EXPECT_NE(test::error_message([&] { load_tensors(dir / "fifo"); }).find("it is a FIFO"),
            std::string::npos);
  EXPECT_NE(test::error_message([&] { read_file("/dev/zero", 100); }).find("a character device"),
            std::string::npos);
  EXPECT_NE(test::error_message([&] { read_file(dir.path(), 100); }).find("a directory"),
            std::string::npos);
  EXPECT_NE(test::error_message([&] { read_file(dir / "none", 100); }).find("no such file"),
            std::string::npos);
}

}  // namespace
}  // namespace wgpt::io
