# SPDX-License-Identifier: BSD-3-Clause
# Which commit this build is: `git describe` at configure time in a git checkout (a Spack git
# fetch, a clone, a worktree), else the stamp `git archive` writes into cmake/version-stamp.txt
# (export-subst, see .gitattributes) in a release tarball. Sets SCAL_VERSION_COMMIT (full hash or
# "unknown") and SCAL_VERSION_DESCRIBE (e.g. v0.1.0-158-g20e733a-dirty, or the short hash).
function(scal_version_stamp source_dir)
  set(commit "")
  set(describe "")
  find_package(Git QUIET)
  if(GIT_FOUND AND EXISTS ${source_dir}/.git)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${source_dir} rev-parse --verify HEAD
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                    RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${source_dir} describe --tags --always --dirty
                              --match "v[0-9]*"
                      OUTPUT_VARIABLE describe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    else()
      set(commit "")
    endif()
  endif()
  if(NOT commit AND EXISTS ${source_dir}/cmake/version-stamp.txt)
    file(STRINGS ${source_dir}/cmake/version-stamp.txt stamp REGEX "^commit ")
    # an unexpanded stamp ($Format:...$) is a source tree copied without git archive: no commit
    if(stamp MATCHES "^commit ([0-9a-f]+)$")
      set(commit ${CMAKE_MATCH_1})
      file(STRINGS ${source_dir}/cmake/version-stamp.txt stamp REGEX "^describe ")
      if(stamp MATCHES "^describe ([^$]+)$")
        set(describe ${CMAKE_MATCH_1})
      endif()
    endif()
  endif()
  if(NOT commit)
    set(commit "unknown")
  endif()
  if(NOT describe)
    string(SUBSTRING "${commit}" 0 12 describe)
  endif()
  set(SCAL_VERSION_COMMIT ${commit} PARENT_SCOPE)
  set(SCAL_VERSION_DESCRIBE ${describe} PARENT_SCOPE)
endfunction()
