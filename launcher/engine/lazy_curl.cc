// libcurl, loaded when the first HTTP request is made rather than when corral
// starts. Linked normally, libcurl and its ~30 libraries (GnuTLS, OpenSSL,
// Kerberos, LDAP, ...) were mapped, relocated and initialised (GnuTLS reads
// its configuration in a constructor) by every corral process: about half of
// `corral check`'s start-up, which audit jobs and scripts pay per call.
//
// These are the libcurl functions corral calls, defined here under their own
// names; each forwards to libcurl.so.4 opened with dlopen on first use. When
// it cannot be opened, curl_easy_init returns null (every caller already says
// "cannot start libcurl") and the loader's reason is logged once.
#include <curl/curl.h>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdlib>

#include "base/base.h"

// <curl/curl.h> wraps these two in type-checking macros; the functions are defined here.
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_share_setopt

namespace {

struct Curl {
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_recv) easy_recv = nullptr;
  decltype(&::curl_easy_send) easy_send = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_share_init) share_init = nullptr;
  CURLSHcode (*share_setopt)(CURLSH*, CURLSHoption, ...) = nullptr;
  bool loaded = false;
};

template <typename F>
bool Bind(void* library, const char* name, F& function) {
  function = reinterpret_cast<F>(::dlsym(library, name));
  return function != nullptr;
}

Curl Open() {
  Curl curl;
  void* library = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    corral::log::error(std::string("cannot load libcurl (") + ::dlerror() +
                       "); corral needs it to talk to container engines and webhooks: install "
                       "libcurl4");
    return curl;
  }
  curl.loaded = Bind(library, "curl_easy_init", curl.easy_init) &&
                Bind(library, "curl_easy_cleanup", curl.easy_cleanup) &&
                Bind(library, "curl_easy_reset", curl.easy_reset) &&
                Bind(library, "curl_easy_setopt", curl.easy_setopt) &&
                Bind(library, "curl_easy_getinfo", curl.easy_getinfo) &&
                Bind(library, "curl_easy_perform", curl.easy_perform) &&
                Bind(library, "curl_easy_recv", curl.easy_recv) &&
                Bind(library, "curl_easy_send", curl.easy_send) &&
                Bind(library, "curl_easy_strerror", curl.easy_strerror) &&
                Bind(library, "curl_slist_append", curl.slist_append) &&
                Bind(library, "curl_slist_free_all", curl.slist_free_all) &&
                Bind(library, "curl_share_init", curl.share_init) &&
                Bind(library, "curl_share_setopt", curl.share_setopt);
  if (!curl.loaded) corral::log::error(std::string("libcurl.so.4 lacks a function corral calls (") + ::dlerror() + ")");
  return curl;
}

// Opened once, on first use, from whichever thread comes first.
const Curl& Get() {
  static const Curl curl = Open();
  return curl;
}

// The value after the option, read as the type libcurl reads it for that
// option's range (curl.h: CURLOPTTYPE_*), and passed on unchanged.
template <typename Call>
CURLcode ForwardOption(int option, va_list args, Call call) {
  if (option < CURLOPTTYPE_OBJECTPOINT) return call(va_arg(args, long));
  if (option < CURLOPTTYPE_FUNCTIONPOINT) return call(va_arg(args, void*));
  if (option < CURLOPTTYPE_OFF_T) return call(va_arg(args, void (*)()));
  if (option < CURLOPTTYPE_BLOB) return call(va_arg(args, curl_off_t));
  return call(va_arg(args, void*));
}

// libcurl opens its sockets without close-on-exec: a program corral starts
// would hold its engine connections. Every handle opens them here instead.
curl_socket_t OpenCloseOnExec(void*, curlsocktype, curl_sockaddr* address) {
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

// libcurl 7.88 also opens a socket pair per handle (to wake its poll) with no
// way to ask for close-on-exec. So every descriptor from 3 up is marked once
// a request is under way, and again after it (for one that never connected):
// one close_range (Linux 5.11), else each descriptor /proc/self/fd lists.
// Nothing corral holds is meant for a program it execs: what is handed on is
// dup2'ed into place, which clears the mark.
void MarkDescriptorsCloseOnExec() {
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  for (dirent* entry; (entry = ::readdir(dir)) != nullptr;) {
    int fd = std::atoi(entry->d_name);
    if (fd > 2 && fd != ::dirfd(dir)) ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC);
  }
  ::closedir(dir);
}

int MarkOnceConnected(void*, char*, char*, int, int) {
  MarkDescriptorsCloseOnExec();
  return CURL_PREREQFUNC_OK;
}

CURL* WithCloseOnExec(CURL* handle) {
  if (handle != nullptr) {
    Get().easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION,
                      static_cast<curl_opensocket_callback>(&OpenCloseOnExec));
    Get().easy_setopt(handle, CURLOPT_PREREQFUNCTION,
                      static_cast<curl_prereq_callback>(&MarkOnceConnected));
  }
  return handle;
}

}  // namespace

extern "C" {

CURL* curl_easy_init() { return Get().loaded ? WithCloseOnExec(Get().easy_init()) : nullptr; }

void curl_easy_cleanup(CURL* handle) {
  if (handle != nullptr) Get().easy_cleanup(handle);
}

void curl_easy_reset(CURL* handle) {
  if (handle != nullptr) WithCloseOnExec((Get().easy_reset(handle), handle));
}

CURLcode curl_easy_setopt(CURL* handle, CURLoption option, ...) {
  if (!Get().loaded) return CURLE_FAILED_INIT;
  va_list args;
  va_start(args, option);
  CURLcode code = ForwardOption(option, args, [&](auto value) {
    return Get().easy_setopt(handle, option, value);
  });
  va_end(args);
  return code;
}

// Every CURLINFO_* is followed by a pointer to where the value goes.
CURLcode curl_easy_getinfo(CURL* handle, CURLINFO info, ...) {
  if (!Get().loaded) return CURLE_FAILED_INIT;
  va_list args;
  va_start(args, info);
  void* out = va_arg(args, void*);
  va_end(args);
  return Get().easy_getinfo(handle, info, out);
}

CURLcode curl_easy_perform(CURL* handle) {
  if (!Get().loaded) return CURLE_FAILED_INIT;
  CURLcode code = Get().easy_perform(handle);
  MarkDescriptorsCloseOnExec();
  return code;
}

CURLcode curl_easy_recv(CURL* handle, void* buffer, size_t length, size_t* n) {
  return Get().loaded ? Get().easy_recv(handle, buffer, length, n) : CURLE_FAILED_INIT;
}

CURLcode curl_easy_send(CURL* handle, const void* buffer, size_t length, size_t* n) {
  return Get().loaded ? Get().easy_send(handle, buffer, length, n) : CURLE_FAILED_INIT;
}

const char* curl_easy_strerror(CURLcode code) {
  return Get().loaded ? Get().easy_strerror(code) : "libcurl could not be loaded";
}

curl_slist* curl_slist_append(curl_slist* list, const char* text) {
  return Get().loaded ? Get().slist_append(list, text) : nullptr;
}

void curl_slist_free_all(curl_slist* list) {
  if (list != nullptr) Get().slist_free_all(list);
}

CURLSH* curl_share_init() { return Get().loaded ? Get().share_init() : nullptr; }

// CURLSHOPT_SHARE and _UNSHARE take an int (a curl_lock_data), the lock
// functions a function pointer, _USERDATA a pointer.
CURLSHcode curl_share_setopt(CURLSH* share, CURLSHoption option, ...) {
  if (!Get().loaded) return CURLSHE_NOT_BUILT_IN;
  va_list args;
  va_start(args, option);
  CURLSHcode code = CURLSHE_BAD_OPTION;
  switch (option) {
    case CURLSHOPT_SHARE:
    case CURLSHOPT_UNSHARE: code = Get().share_setopt(share, option, va_arg(args, int)); break;
    case CURLSHOPT_LOCKFUNC:
    case CURLSHOPT_UNLOCKFUNC:
      code = Get().share_setopt(share, option, va_arg(args, void (*)()));
      break;
    case CURLSHOPT_USERDATA: code = Get().share_setopt(share, option, va_arg(args, void*)); break;
    default: break;
  }
  va_end(args);
  return code;
}

}  // extern "C"
