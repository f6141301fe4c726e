# Writes OUTPUT, a header defining TILE_COMPILER_FINGERPRINT: the SHA-256 of
# every compiler source (listed one per line in the file LIST). The kernel cache keys entries by
# it, so changing the compiler's code invalidates what it compiled before,
# not only a version bump.
file(STRINGS "${LIST}" files)
set(all "")
foreach(f IN LISTS files)
  file(SHA256 "${f}" h)
  string(APPEND all "${f}:${h}\n")
endforeach()
string(SHA256 fingerprint "${all}")
set(text "#define TILE_COMPILER_FINGERPRINT \"${fingerprint}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${text}")
