/**
 * A record a format cannot decode (malformed text, a wrong type). Carries no location: the
 * connector that read the record knows where it came from and wraps it in a `ConnectorError`,
 * or skips the record when the format's `ignore-parse-errors` option says so.
 */
export class FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FormatError";
  }
}
