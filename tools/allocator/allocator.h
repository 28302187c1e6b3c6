#pragma once

// The memory allocator of the executables (the command line and optimizer_bench).
//
// The optimizer allocates and frees millions of small objects (protobuf strings and
// messages, hash-table nodes), in bursts that glibc's malloc serves slowly: each free of
// a large block (an index table, a node set) makes it merge every small free chunk it
// holds (malloc_consolidate, 4 % of the time at 400 layers). The executables link
// mimalloc when the build found it (ONNXOPT_ALLOCATOR in CMakeLists.txt), which replaces
// malloc and operator new for the whole process (operator new through allocator.cc, so
// that running out of memory throws std::bad_alloc). The libraries and the Python modules
// never do: the process that loads them keeps its own allocator.

#include <string>

namespace onnxopt::tools {

// The allocator serving malloc in this process, for `onnxopt --version` and the
// benchmarks' output: "mimalloc 2.0.9", or "system malloc". When mimalloc is linked but
// malloc does not reach it (another library took malloc first), says so.
std::string AllocatorDescription();

}  // namespace onnxopt::tools
