# The libraries corral's code uses, one name each: corral::spdlog,
# corral::yaml_cpp, corral::seccomp, corral::toml, corral::openssl. With CORRAL_STATIC_DEPS
# they are linked into the programs instead of loaded when a program starts,
# and `corral` takes libstdc++ and libgcc in too: loading and relocating
# these libraries was ~1.4 ms of the ~2 ms `corral check` took to start
# (issue 17), which scripts and audit jobs pay per call. Debian ships spdlog
# and fmt as shared libraries only, so then they are compiled in from their
# headers, as is toml++. OpenSSL's libcrypto and libssl alone cost another
# ~1.2 ms of loading per start (issue 29), though only the proxy uses them.
foreach(dep spdlog yaml_cpp seccomp toml openssl)
  add_library(corral_dep_${dep} INTERFACE)
  add_library(corral::${dep} ALIAS corral_dep_${dep})
endforeach()

if(CORRAL_STATIC_DEPS)
  find_library(CORRAL_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a REQUIRED)
  find_library(CORRAL_SECCOMP_ARCHIVE NAMES libseccomp.a REQUIRED)
  get_target_property(spdlog_include spdlog::spdlog INTERFACE_INCLUDE_DIRECTORIES)
  target_include_directories(corral_dep_spdlog INTERFACE ${spdlog_include})
  target_compile_definitions(corral_dep_spdlog INTERFACE SPDLOG_FMT_EXTERNAL FMT_HEADER_ONLY)
  target_link_libraries(corral_dep_spdlog INTERFACE Threads::Threads)
  get_target_property(yaml_include yaml-cpp INTERFACE_INCLUDE_DIRECTORIES)
  target_include_directories(corral_dep_yaml_cpp INTERFACE ${yaml_include})
  target_link_libraries(corral_dep_yaml_cpp INTERFACE ${CORRAL_YAML_CPP_ARCHIVE})
  target_include_directories(corral_dep_seccomp INTERFACE ${SECCOMP_INCLUDE_DIRS})
  target_link_libraries(corral_dep_seccomp INTERFACE ${CORRAL_SECCOMP_ARCHIVE})
  target_compile_definitions(corral_dep_toml INTERFACE TOML_HEADER_ONLY=1)
  find_library(CORRAL_SSL_ARCHIVE NAMES libssl.a REQUIRED)
  find_library(CORRAL_CRYPTO_ARCHIVE NAMES libcrypto.a REQUIRED)
  target_include_directories(corral_dep_openssl INTERFACE ${OPENSSL_INCLUDE_DIR})
  target_link_libraries(corral_dep_openssl INTERFACE ${CORRAL_SSL_ARCHIVE} ${CORRAL_CRYPTO_ARCHIVE}
                        ${CMAKE_DL_LIBS} Threads::Threads)
else()
  target_link_libraries(corral_dep_spdlog INTERFACE spdlog::spdlog)
  target_link_libraries(corral_dep_yaml_cpp INTERFACE yaml-cpp)
  target_link_libraries(corral_dep_seccomp INTERFACE PkgConfig::SECCOMP)
  target_link_libraries(corral_dep_toml INTERFACE tomlplusplus::tomlplusplus)
  target_link_libraries(corral_dep_openssl INTERFACE OpenSSL::SSL OpenSSL::Crypto)
endif()
