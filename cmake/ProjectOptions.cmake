# Options applied to every project target (never to imported ones).

# Warnings are errors on our own code only.
function(onnxopt_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
  if(ONNXOPT_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# The ONNX protobuf header is large and included almost everywhere: precompile it once
# per configuration. ccache handles precompiled headers with the sloppiness set in the Makefile.
function(onnxopt_use_proto_pch target)
  target_precompile_headers(${target} PRIVATE <onnx/onnx_pb.h> <string> <vector> <memory>)
endfunction()
