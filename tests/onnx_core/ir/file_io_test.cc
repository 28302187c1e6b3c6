#include "onnx_core/ir/file_io.h"

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::testing::HasSubstr;
using testing::ListFiles;
using testing::TempDir;
namespace fs = std::filesystem;

TEST(AtomicFile, LeavesNothingUnlessCommitted) {
  TempDir dir;
  {
    AtomicFile file(dir / "a.txt", "cannot write test file");
    file.WriteAt("hello", 0);
    EXPECT_EQ(ListFiles(dir.path()).size(), 1u) << "the temporary file";
  }
  EXPECT_TRUE(ListFiles(dir.path()).empty());
  AtomicFile file(dir / "a.txt", "cannot write test file");
  file.WriteAt("hello", 0);
  file.Commit();
  EXPECT_EQ(testing::ReadFile(dir / "a.txt"), "hello");
  EXPECT_EQ(ListFiles(dir.path()).size(), 1u);
}

TEST(AtomicFile, ReplacesTheDestinationOnlyOnCommit) {
  TempDir dir;
  testing::WriteFile(dir / "a.txt", "old");
  WriteFileAtomically(dir / "a.txt", "new", "test file");
  EXPECT_EQ(testing::ReadFile(dir / "a.txt"), "new");
}

TEST(AtomicFile, ReportsAFolderThatCannotBeWritten) {
  TempDir dir;
  testing::WriteFile(dir / "file", "x");
  try {
    WriteFileAtomically(dir / "file" / "a.txt", "bytes", "test file");
    FAIL() << "wrote below a regular file";
  } catch (const IoError& error) {
    EXPECT_THAT(error.what(), HasSubstr("cannot write test file"));
    EXPECT_THAT(error.what(), HasSubstr("Not a directory"));
  }
}

TEST(ReadRegularFile, ReadsAndChecksTheFile) {
  TempDir dir;
  testing::WriteFile(dir / "a.bin", "abc");
  EXPECT_EQ(ReadRegularFile(dir / "a.bin", "test file", 10, "ten bytes"), "abc");
  EXPECT_THROW(ReadRegularFile(dir / "missing", "test file", 10, "ten bytes"), IoError);
  EXPECT_THROW(ReadRegularFile(dir.path(), "test file", 10, "ten bytes"), IoError) << "a folder";
  fs::create_symlink(dir / "a.bin", dir / "link.bin");
  EXPECT_EQ(ReadRegularFile(dir / "link.bin", "test file", 10, "ten bytes"), "abc") << "links are followed";
  try {
    ReadRegularFile(dir / "a.bin", "test file", 2, "two bytes");
    FAIL();
  } catch (const ModelError& error) {
    EXPECT_THAT(error.what(), HasSubstr("the file has 3 bytes, more than two bytes"));
  }
}

TEST(OpenRegularFile, RefusesWhatIsNoRegularFileWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_symlink(dir / "fifo", dir / "link-to-fifo");
  fs::create_directory(dir / "folder");
  std::vector<std::pair<fs::path, std::string>> cases = {
      {dir / "fifo", "a FIFO"},
      {dir / "link-to-fifo", "a FIFO"},
      {dir / "folder", "a directory"},
      {"/dev/null", "a character device"},
  };
  // A block device when the machine shows one (containers often show loop devices).
  for (const auto& entry : fs::directory_iterator("/dev")) {
    if (entry.is_block_file()) {
      cases.emplace_back(entry.path(), "a block device");
      break;
    }
  }
  for (const auto& [path, kind] : cases) {
    try {
      OpenRegularFile(path, "test file");
      ADD_FAILURE() << "opened " << path;
    } catch (const IoError& error) {
      EXPECT_EQ(std::string(error.what()), "cannot open test file '" + path.string() + "': " + kind + ", not a regular file");
    }
  }
}

TEST(OutputFiles, CommitsAllOrNothing) {
  TempDir dir;
  {
    OutputFiles outputs;
    outputs.Add(dir / "a", "cannot write a").WriteAt("A", 0);
    outputs.Add(dir / "b", "cannot write b").WriteAt("B", 0);
    EXPECT_EQ(outputs.Destinations(), (std::vector<fs::path>{dir / "a", dir / "b"}));
    // A third output that cannot be prepared: the command gives up before Commit.
    fs::create_directory(dir / "c");
    EXPECT_THROW(outputs.Add(dir / "c", "cannot write c"), IoError);
  }
  EXPECT_TRUE(ListFiles(dir.path()).empty()) << "no temporary file and no output left";
  OutputFiles outputs;
  outputs.Add(dir / "a", "cannot write a").WriteAt("A", 0);
  outputs.Add(dir / "b", "cannot write b").WriteAt("B", 0);
  outputs.Commit();
  EXPECT_EQ(testing::ReadFile(dir / "a"), "A");
  EXPECT_EQ(testing::ReadFile(dir / "b"), "B");
}

TEST(AtomicFile, ReplacesASymbolicLinkNotItsTarget) {
  TempDir dir;
  testing::WriteFile(dir / "target", "old");
  fs::create_symlink(dir / "target", dir / "link");
  WriteFileAtomically(dir / "link", "new", "test file");
  EXPECT_EQ(testing::ReadFile(dir / "target"), "old");
  EXPECT_FALSE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(testing::ReadFile(dir / "link"), "new");
}

TEST(ResolvedPaths, DesignateFilesWhateverTheirSpelling) {
  TempDir dir;
  fs::create_directory(dir / "sub");
  fs::create_directory_symlink(dir / "sub", dir / "alias");
  testing::WriteFile(dir / "sub" / "m.onnx", "m");
  fs::create_symlink(dir / "sub" / "m.onnx", dir / "link.onnx");
  const fs::path file = ResolvedReadPath(dir / "sub" / "m.onnx");
  EXPECT_EQ(ResolvedReadPath(dir / "alias" / "m.onnx"), file);
  EXPECT_EQ(ResolvedReadPath(dir / "link.onnx"), file) << "reading follows the link";
  EXPECT_EQ(ResolvedWritePath(dir / "sub" / ".." / "sub" / "." / "m.onnx"), file);
  EXPECT_EQ(ResolvedWritePath(dir / "alias" / "m.onnx"), file) << "the folder is resolved";
  EXPECT_NE(ResolvedWritePath(dir / "link.onnx"), file) << "writing replaces the link, not its target";
  EXPECT_EQ(ResolvedWritePath(dir / "alias" / "new.onnx"), ResolvedReadPath(dir / "sub") / "new.onnx");
  EXPECT_EQ(ResolvedWritePath(dir / "absent" / "x"), ResolvedReadPath(dir.path()) / "absent" / "x");
}

TEST(Quote, ShowsEveryByte) {
  EXPECT_EQ(Quote("plain name_1.onnx"), "'plain name_1.onnx'");
  EXPECT_EQ(Quote(std::string("a\0b", 3)), "'a\\x00b'");
  EXPECT_EQ(Quote("line\nfeed\ttab\rreturn"), "'line\\nfeed\\ttab\\rreturn'");
  EXPECT_EQ(Quote("\x1b[31mred\x7f"), "'\\x1b[31mred\\x7f'");
  EXPECT_EQ(Quote("it's a\\b"), "'it\\'s a\\\\b'");
  EXPECT_EQ(Quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80'")
      << "valid UTF-8 is shown as it is";
  EXPECT_EQ(Quote("\xc3"), "'\\xc3'") << "truncated sequence";
  EXPECT_EQ(Quote("\xc0\xaf"), "'\\xc0\\xaf'") << "overlong encoding";
  EXPECT_EQ(Quote("\xed\xa0\x80"), "'\\xed\\xa0\\x80'") << "surrogate";
  EXPECT_EQ(Quote("\xc2\x9b"), "'\\xc2\\x9b'") << "C1 control (CSI)";
  EXPECT_EQ(Quote("\xff"), "'\\xff'");
  // Distinct texts stay distinct.
  EXPECT_NE(Quote("\\x00"), Quote(std::string("\0", 1)));
}

}  // namespace
}  // namespace onnxopt::core::ir
