# cmake -DINPUT=report_template.html -DOUTPUT=report_template_data.cc -P embed_template.cmake
# Writes the HTML as a C++ raw string: optrace::analyze::report::ReportTemplateHtml().
file(READ ${INPUT} _html)
string(FIND "${_html}" ")OPTRACE_HTML\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )OPTRACE_HTML\"")
endif()
file(WRITE ${OUTPUT}.tmp
"// Generated from report_template.html by embed_template.cmake; do not edit.\n"
"#include \"analyze/report/html_report.h\"\n\n"
"namespace optrace::analyze::report {\n\n"
"std::string_view ReportTemplateHtml() {\n"
"  static constexpr char kHtml[] = R\"OPTRACE_HTML(${_html})OPTRACE_HTML\";\n"
"  return std::string_view(kHtml, sizeof(kHtml) - 1);\n"
"}\n\n"
"}  // namespace optrace::analyze::report\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
