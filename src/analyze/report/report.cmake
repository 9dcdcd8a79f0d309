# Report writers of the analyze layer (included from src/analyze/CMakeLists.txt).
# report.html is written without any file next to the binary: page/report.html and its parts
# (page/style.css, one script per view) are joined at build time (cmake/join_page.cmake) and the
# page is compiled into the library as a string (cmake/embed_html.cmake).
file(GLOB _page_parts CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/page/* ${PROJECT_SOURCE_DIR}/src/core/page/*)
set(_tpl ${CMAKE_CURRENT_BINARY_DIR}/report_page.html)
set(_tpl_cc ${CMAKE_CURRENT_BINARY_DIR}/report_template_data.cc)
add_custom_command(
  OUTPUT ${_tpl}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${CMAKE_CURRENT_LIST_DIR}/page/report.html -DOUTPUT=${_tpl}
          -DSHARED=${PROJECT_SOURCE_DIR}/src/core/page -P ${PROJECT_SOURCE_DIR}/cmake/join_page.cmake
  DEPENDS ${_page_parts} ${PROJECT_SOURCE_DIR}/cmake/join_page.cmake
  COMMENT "Joining report.html from src/analyze/report/page/")
add_custom_command(
  OUTPUT ${_tpl_cc}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${_tpl} -DOUTPUT=${_tpl_cc} -DHEADER=analyze/report/html_report.h
          -DNAMESPACE=optrace::analyze::report -DFUNCTION=ReportTemplateHtml
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  DEPENDS ${_tpl} ${PROJECT_SOURCE_DIR}/cmake/embed_html.cmake
  COMMENT "Embedding report.html")
target_sources(optrace_analyze_report PRIVATE ${_tpl_cc})
