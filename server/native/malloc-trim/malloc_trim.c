// `trim()`: glibc's malloc_trim(0), which hands the free pages inside malloc's arenas back to
// the system (madvise), not only the free space at the top of the main heap as free() does.
// After a burst of traffic, freed socket and Buffer memory stays in those arenas, fragmented
// by the few chunks still in use, and counts in the process's RSS until then. Elsewhere (musl,
// macOS) it does nothing and returns false. Node-API only: one build serves every Node version.
#include <node_api.h>
#include <stdbool.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#if defined(__GLIBC__)
  released = malloc_trim(0) == 1;
#endif
  napi_value result;
  napi_get_boolean(env, released, &result);
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value trim;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &trim) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", trim) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
