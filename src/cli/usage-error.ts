/** A problem with what the user asked for (bad flag value, missing file): printed as one line, exit code 2. */
export class UsageError extends Error {}
