/* Helpers of libkvclient's Go half, defined in kvclient.c. */
#include <stdint.h>

typedef const char kvc_cchar;
typedef const void kvc_cvoid;

void kvc_store_handle(void **out, uintptr_t id);
uintptr_t kvc_handle_id(void *h);
extern char kvc_empty[1];
