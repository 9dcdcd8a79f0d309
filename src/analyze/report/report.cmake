# Report writers of the analyze layer (included from src/analyze/CMakeLists.txt).
# report_template.html is compiled into the library as a string (cmake/embed_html.cmake), so
# report.html is written without any file next to the binary.
set(_tpl ${CMAKE_CURRENT_LIST_DIR}/report_template.html)
set(_tpl_cc ${CMAKE_CURRENT_BINARY_DIR}/report_template_data.cc)
add_custom_command(
  OUTPUT ${_tpl_cc}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_tpl} -DOUTPUT=${_tpl_cc} -DHEADER=analyze/report/html_report.h
          -DNAMESPACE=optrace::analyze::report -DFUNCTION=ReportTemplateHtml
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  DEPENDS ${_tpl} ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  COMMENT "Embedding report_template.html")
target_sources(optrace_analyze_report PRIVATE ${_tpl_cc})
