/* CHECK and OK for the C client's check programs (c_check.c, infer_check.c): a failed
 * CHECK is counted in `failures` and reported; a failed OK ends the program. */
#ifndef SSIM_TESTS_CHECK_H
#define SSIM_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "ssim_client.h"

static int failures = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

#define OK(call)                                                                                  \
  do {                                                                                            \
    ssim_status s_ = (call);                                                                      \
    if (s_ != SSIM_OK) {                                                                          \
      fprintf(stderr, "%s:%d: %s -> %d: %s\n", __FILE__, __LINE__, #call, s_, ssim_last_error()); \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

#endif
