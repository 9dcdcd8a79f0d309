# explain.html's template, compiled into optrace_explain as a string, so explain.html is written
# without any file next to the binary. Two uses of this one file:
#   include(explain_html.cmake)    from src/explain/CMakeLists.txt: adds the generated source;
#   cmake -DINPUT=explain_template.html -DOUTPUT=explain_template_data.cc -P explain_html.cmake
#                                  (the build step it adds): writes ExplainTemplateHtml().
# Mirrors src/analyze/report/report.cmake + embed_template.cmake. (A raw-string delimiter is at
# most 16 characters.)
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ ${INPUT} _html)
  string(FIND "${_html}" ")EXPLAIN_HTML\"" _clash)
  if(NOT _clash EQUAL -1)
    message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )EXPLAIN_HTML\"")
  endif()
  file(WRITE ${OUTPUT}.tmp
"// Generated from explain_template.html by explain_html.cmake; do not edit.\n"
"#include \"explain/explain_html.h\"\n\n"
"namespace optrace::explain {\n\n"
"std::string_view ExplainTemplateHtml() {\n"
"  static constexpr char kHtml[] = R\"EXPLAIN_HTML(${_html})EXPLAIN_HTML\";\n"
"  return std::string_view(kHtml, sizeof(kHtml) - 1);\n"
"}\n\n"
"}  // namespace optrace::explain\n")
  file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
  file(REMOVE ${OUTPUT}.tmp)
  return()
endif()

set(_explain_tpl ${CMAKE_CURRENT_LIST_DIR}/explain_template.html)
set(_explain_tpl_cc ${CMAKE_CURRENT_BINARY_DIR}/explain_template_data.cc)
add_custom_command(
  OUTPUT ${_explain_tpl_cc}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_explain_tpl} -DOUTPUT=${_explain_tpl_cc}
          -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS ${_explain_tpl} ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Embedding explain_template.html")
target_sources(optrace_explain PRIVATE ${_explain_tpl_cc})
