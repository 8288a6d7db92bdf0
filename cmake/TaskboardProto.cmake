# taskboard_proto_library(NAME PROTO_ROOT DIR PROTOS files...): runs protoc with
# the C++ and gRPC plugins into the build tree and builds one static library.
function(taskboard_proto_library name)
  cmake_parse_arguments(ARG "" "PROTO_ROOT" "PROTOS" ${ARGN})
  set(out ${CMAKE_BINARY_DIR}/gen)
  set(srcs)
  foreach(proto ${ARG_PROTOS})
    string(REGEX REPLACE "\\.proto$" "" base ${proto})
    set(generated ${out}/${base}.pb.cc ${out}/${base}.pb.h
                  ${out}/${base}.grpc.pb.cc ${out}/${base}.grpc.pb.h)
    add_custom_command(
      OUTPUT ${generated}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
      COMMAND ${PROTOC} -I ${ARG_PROTO_ROOT} --cpp_out=${out} --grpc_out=${out}
              --plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN} ${ARG_PROTO_ROOT}/${proto}
      DEPENDS ${ARG_PROTO_ROOT}/${proto}
      COMMENT "protoc ${proto}"
      VERBATIM)
    list(APPEND srcs ${out}/${base}.pb.cc ${out}/${base}.grpc.pb.cc)
  endforeach()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} SYSTEM PUBLIC ${out})
  target_link_libraries(${name} PUBLIC PkgConfig::GRPCPP PkgConfig::PROTOBUF)
  set(${name}_SOURCES ${srcs} PARENT_SCOPE)
endfunction()
