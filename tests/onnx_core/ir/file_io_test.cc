#include "onnx_core/ir/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::testing::HasSubstr;
using testing::ListFiles;
using testing::TempDir;

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
  try {
    ReadRegularFile(dir / "a.bin", "test file", 2, "two bytes");
    FAIL();
  } catch (const ModelError& error) {
    EXPECT_THAT(error.what(), HasSubstr("the file has 3 bytes, more than two bytes"));
  }
}

}  // namespace
}  // namespace onnxopt::core::ir
