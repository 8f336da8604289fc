# The tree's layers as libraries. Each layer is one static library that links only the
# layers and packages it may use (its DEPENDS), bottom up:
#   util < spec < plan < state < generate, orchestrator, launch < engine, report < launchers
#   < session (lib/session: what the verbs do) < apps (the verbs: options and printing)
# With the tests, ssim_layer_link_checks() links each layer alone into a shared object
# with --no-undefined: a call from a layer into one it does not name (a back edge up the
# tree) fails the build instead of hiding in the final link. docs/dev/architecture.md
# says what each layer holds.

# ssim_layer(NAME SOURCES file... DEPENDS target...)
function(ssim_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  target_link_libraries(${name} PUBLIC ssim_tree ${L_DEPENDS})
  set_property(GLOBAL APPEND PROPERTY SSIM_LAYERS ${name})
endfunction()

function(ssim_layer_link_checks)
  get_property(layers GLOBAL PROPERTY SSIM_LAYERS)
  set(empty ${CMAKE_BINARY_DIR}/generated/layer_link_check.cpp)
  file(WRITE ${empty} "// Empty: a layer link check's content is the layer's whole archive.\n")
  foreach(layer ${layers})
    add_library(${layer}_link_check SHARED ${empty})
    target_link_libraries(${layer}_link_check PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${layer}>")
    target_link_options(${layer}_link_check PRIVATE -Wl,--no-undefined)
  endforeach()
endfunction()
