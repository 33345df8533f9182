/* A bcastReportError for the report-errors integration test: an embedder's
   reporting function that records the message and returns. */
#include <stdio.h>

void bcastReportError(const char *message) {
  printf("reported: %s\n", message);
  fflush(stdout);
}
