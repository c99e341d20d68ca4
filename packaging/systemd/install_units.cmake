# Runs inside `cmake --install`: writes the units with the prefix being installed to and installs
# them (file(INSTALL) adds DESTDIR and records them in install_manifest.txt).
# Set by the install(CODE) in CMakeLists.txt: HDSTREAM_UNIT_TEMPLATES, HDSTREAM_UNIT_STAGING,
# HDSTREAM_UNIT_DIR, HDSTREAM_UNIT_BINDIR, HDSTREAM_UNIT_DOCDIR.
function(hdstream_under_prefix out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

hdstream_under_prefix(HDSTREAM_BINDIR "${HDSTREAM_UNIT_BINDIR}")
hdstream_under_prefix(HDSTREAM_DOCDIR "${HDSTREAM_UNIT_DOCDIR}")
hdstream_under_prefix(unit_dir "${HDSTREAM_UNIT_DIR}")
foreach(unit hdstream-recv@.service hdstream-send@.service)
  configure_file("${HDSTREAM_UNIT_TEMPLATES}/${unit}.in" "${HDSTREAM_UNIT_STAGING}/${unit}" @ONLY)
  file(INSTALL DESTINATION "${unit_dir}" TYPE FILE PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ
       WORLD_READ FILES "${HDSTREAM_UNIT_STAGING}/${unit}")
endforeach()
