# explain.html's template, joined with the page parts it shares with report.html (src/core/page,
# cmake/join_page.cmake) and compiled into optrace_explain as a string (cmake/embed_html.cmake), so
# explain.html is written without any file next to the binary.
set(_explain_tpl ${CMAKE_CURRENT_LIST_DIR}/explain_template.html)
set(_explain_joined ${CMAKE_CURRENT_BINARY_DIR}/explain_page.html)
set(_explain_tpl_cc ${CMAKE_CURRENT_BINARY_DIR}/explain_template_data.cc)
file(GLOB _explain_shared CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/core/page/*)
add_custom_command(
  OUTPUT ${_explain_joined}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_explain_tpl} -DOUTPUT=${_explain_joined}
          -DSHARED=${PROJECT_SOURCE_DIR}/src/core/page -P ${PROJECT_SOURCE_DIR}/cmake/join_page.cmake
  DEPENDS ${_explain_tpl} ${_explain_shared} ${PROJECT_SOURCE_DIR}/cmake/join_page.cmake
  COMMENT "Joining explain.html with src/core/page/")
add_custom_command(
  OUTPUT ${_explain_tpl_cc}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_explain_joined} -DOUTPUT=${_explain_tpl_cc} -DHEADER=explain/explain_html.h
          -DNAMESPACE=optrace::explain -DFUNCTION=ExplainTemplateHtml
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  DEPENDS ${_explain_joined} ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  COMMENT "Embedding explain.html")
target_sources(optrace_explain PRIVATE ${_explain_tpl_cc})
