# taskboard_proto_library(NAME PROTO_ROOT DIR PROTOS files... [IMPORT_DIRS dirs...]
#                         [DEPS libs...] [MESSAGES_ONLY]): runs protoc with the C++ and
# gRPC plugins into the build tree and builds one static library. IMPORT_DIRS are
# extra -I roots for imports that another proto library (in DEPS) already
# compiles. MESSAGES_ONLY: no gRPC stubs, and the library links Protobuf alone.
function(taskboard_proto_library name)
  cmake_parse_arguments(ARG "MESSAGES_ONLY" "PROTO_ROOT" "PROTOS;IMPORT_DIRS;DEPS" ${ARGN})
  set(includes -I ${ARG_PROTO_ROOT})
  foreach(dir ${ARG_IMPORT_DIRS})
    list(APPEND includes -I ${dir})
  endforeach()
  set(out ${CMAKE_BINARY_DIR}/gen)
  set(srcs)
  foreach(proto ${ARG_PROTOS})
    string(REGEX REPLACE "\\.proto$" "" base ${proto})
    set(generated ${out}/${base}.pb.cc ${out}/${base}.pb.h)
    set(grpc_args)
    if(NOT ARG_MESSAGES_ONLY)
      list(APPEND generated ${out}/${base}.grpc.pb.cc ${out}/${base}.grpc.pb.h)
      set(grpc_args --grpc_out=${out} --plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN})
    endif()
    add_custom_command(
      OUTPUT ${generated}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
      COMMAND ${PROTOC} ${includes} --cpp_out=${out} ${grpc_args} ${ARG_PROTO_ROOT}/${proto}
      DEPENDS ${ARG_PROTO_ROOT}/${proto}
      COMMENT "protoc ${proto}"
      VERBATIM)
    list(APPEND srcs ${out}/${base}.pb.cc)
    if(NOT ARG_MESSAGES_ONLY)
      list(APPEND srcs ${out}/${base}.grpc.pb.cc)
    endif()
  endforeach()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} SYSTEM PUBLIC ${out})
  if(ARG_MESSAGES_ONLY)
    target_link_libraries(${name} PUBLIC PkgConfig::PROTOBUF ${ARG_DEPS})
  else()
    target_link_libraries(${name} PUBLIC PkgConfig::GRPCPP PkgConfig::PROTOBUF ${ARG_DEPS})
  endif()
  set(${name}_SOURCES ${srcs} PARENT_SCOPE)
endfunction()
