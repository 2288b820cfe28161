# corral_embed_files(TARGET FUNCTION FILE...): compiles the files into TARGET,
# so an installed corral has them without the source tree. FUNCTION is a
# qualified name ("corral::launcher::AgentImageFiles") of a function that
# returns std::vector<std::pair<std::string_view, std::string_view>>: each
# file's name (without its folder) and its bytes. The source is written at
# build time, again whenever one of the files changes.
#
# Run with -P (by the rule corral_embed_files makes), this file writes that
# source: -DOUT=file.cc -DFUNCTION=ns::Name -DFILES=a;b.
set(CORRAL_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

function(corral_embed_files target function)
  string(REPLACE "::" "_" stem "${function}")
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${stem}.cc)
  string(REPLACE ";" "\\;" files "${ARGN}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DFUNCTION=${function} "-DFILES=${files}"
            -P ${CORRAL_EMBED_SCRIPT}
    DEPENDS ${ARGN} ${CORRAL_EMBED_SCRIPT}
    COMMENT "Embedding ${function}: ${ARGN}")
  target_sources(${target} PRIVATE ${out})
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND OUT)
  string(REGEX MATCH "^(.*)::([^:]+)$" _ "${FUNCTION}")
  set(namespace ${CMAKE_MATCH_1})
  set(name ${CMAKE_MATCH_2})
  set(arrays "")
  set(entries "")
  set(index 0)
  foreach(file IN LISTS FILES)
    get_filename_component(base "${file}" NAME)
    file(READ "${file}" hex HEX)
    string(LENGTH "${hex}" digits)
    math(EXPR size "${digits} / 2")
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    string(APPEND arrays "const unsigned char kFile${index}[] = {${bytes}0};\n")
    string(APPEND entries
           "      {\"${base}\", {reinterpret_cast<const char*>(kFile${index}), ${size}}},\n")
    math(EXPR index "${index} + 1")
  endforeach()
  file(WRITE "${OUT}.new"
       "// Written by cmake/embed_files.cmake at build time: do not edit.\n"
       "#include <string_view>\n#include <utility>\n#include <vector>\n\n"
       "namespace ${namespace} {\nnamespace {\n${arrays}}  // namespace\n\n"
       "std::vector<std::pair<std::string_view, std::string_view>> ${name}() {\n"
       "  return {\n${entries}  };\n}\n\n}  // namespace ${namespace}\n")
  file(RENAME "${OUT}.new" "${OUT}")
endif()
