/** Exit codes of DESIGN.md: 0 success, 1 SQL or validation errors, 2 runtime failures. */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_RUNTIME = 2;
/** Stopped by Ctrl-C (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;
