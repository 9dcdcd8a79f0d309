# Joins a page from its parts: every /*@include NAME*/ in INPUT is replaced by the file NAME next
# to INPUT, else in SHARED (src/core/page: parts more than one page uses) (a stylesheet inside
# <style>, the scripts of each view inside <script>), so each view's script is its own source file
# and the page still ships as one self-contained HTML document.
#   cmake -DINPUT=page/report.html -DOUTPUT=report_joined.html [-DSHARED=dir] -P join_page.cmake
file(READ ${INPUT} _page)
get_filename_component(_dir ${INPUT} DIRECTORY)
string(REGEX MATCHALL "/\\*@include [A-Za-z0-9_.-]+\\*/" _markers "${_page}")
foreach(_marker IN LISTS _markers)
  string(REGEX REPLACE "^/\\*@include ([A-Za-z0-9_.-]+)\\*/$" "\\1" _name "${_marker}")
  if(EXISTS ${_dir}/${_name})
    file(READ ${_dir}/${_name} _part)
  elseif(DEFINED SHARED AND EXISTS ${SHARED}/${_name})
    file(READ ${SHARED}/${_name} _part)
  else()
    message(FATAL_ERROR "${INPUT}: ${_marker}: no file ${_name} in ${_dir} or ${SHARED}")
  endif()
  string(REPLACE "${_marker}" "${_part}" _page "${_page}")
endforeach()
file(WRITE ${OUTPUT}.tmp "${_page}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
