# Writes an HTML template as a C++ raw string, so a report page is written without any file next
# to the binary. Used by src/analyze/report/report.cmake and src/explain/explain_html.cmake:
#   cmake -DINPUT=page.html -DOUTPUT=page_data.cc -DHEADER=dir/page.h -DNAMESPACE=optrace::x
#         -DFUNCTION=PageTemplateHtml -P embed_html.cmake
# defines `std::string_view NAMESPACE::FUNCTION()` (declared in HEADER).
file(READ ${INPUT} _html)
string(FIND "${_html}" ")OPTRACE_HTML\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )OPTRACE_HTML\"")
endif()
get_filename_component(_name ${INPUT} NAME)
file(WRITE ${OUTPUT}.tmp
"// Generated from ${_name} by cmake/embed_html.cmake; do not edit.\n"
"#include \"${HEADER}\"\n\n"
"namespace ${NAMESPACE} {\n\n"
"std::string_view ${FUNCTION}() {\n"
"  static constexpr char kHtml[] = R\"OPTRACE_HTML(${_html})OPTRACE_HTML\";\n"
"  return std::string_view(kHtml, sizeof(kHtml) - 1);\n"
"}\n\n"
"}  // namespace ${NAMESPACE}\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
