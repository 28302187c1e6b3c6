# Options applied to every project target (never to imported ones).

# Warnings are shown on our own code only (never on imported targets). They are errors
# only where ONNXOPT_WERROR is on (development and CI: `make` turns it on): a user's
# build must not fail because another compiler version warns about something new.
function(onnxopt_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  # GCC 12 at -O3 reports impossible overlaps and sizes inside std::string's inlined
  # copies (GCC bugs 105329 and 105651; "accessing 9223372036854775810 or more bytes"):
  # every `"text" + std::string` triggers them (seen with GCC 12.2).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-stringop-overflow)
    # At -O3 only, the same inlined copies give "pointer overflow between offset [2,
    # 9223372036854775807]" (-Warray-bounds, GCC bug 105651 again).
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-Wno-array-bounds>)
  endif()
  if(ONNXOPT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(ONNXOPT_SANITIZE)
    # GCC leaves float-to-integer conversions out of "undefined" (clang, which builds the
    # fuzzers, checks them): the reproducers of such findings need it to fail here too.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined,float-cast-overflow)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined,float-cast-overflow)
  endif()
endfunction()

# The ONNX protobuf header is large and included almost everywhere: precompile it.
# ccache handles precompiled headers with the sloppiness set in the Makefile.
function(onnxopt_use_proto_pch target)
  target_precompile_headers(${target} PRIVATE <onnx/onnx_pb.h> <string> <vector> <memory>)
endfunction()

# Targets compiled with the same options share one precompiled header (`owner`'s): each
# one of their own costs a compilation of the protobuf header (~20 s) and ~120 MB of disk
# and of the compiler cache. GCC accepts the shared header as long as no macro it depends
# on is defined differently (-Winvalid-pch, an error under ONNXOPT_WERROR, says so).
function(onnxopt_share_proto_pch target owner)
  target_precompile_headers(${target} REUSE_FROM ${owner})
endfunction()
