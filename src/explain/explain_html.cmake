# explain.html's template, compiled into optrace_explain as a string (cmake/embed_html.cmake), so
# explain.html is written without any file next to the binary.
set(_explain_tpl ${CMAKE_CURRENT_LIST_DIR}/explain_template.html)
set(_explain_tpl_cc ${CMAKE_CURRENT_BINARY_DIR}/explain_template_data.cc)
add_custom_command(
  OUTPUT ${_explain_tpl_cc}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_explain_tpl} -DOUTPUT=${_explain_tpl_cc} -DHEADER=explain/explain_html.h
          -DNAMESPACE=optrace::explain -DFUNCTION=ExplainTemplateHtml
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  DEPENDS ${_explain_tpl} ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  COMMENT "Embedding explain_template.html")
target_sources(optrace_explain PRIVATE ${_explain_tpl_cc})
