// The legacy GraphQL interface is deprecated and retired in early 2027 (the contract's
// "Versioning"); every answer says so, in the headers clients and proxies understand.

/** RFC 9745: deprecated since it was added to Gantry, 2026-01-01T00:00:00Z, as a structured-field date. */
const DEPRECATED_SINCE = '@1767225600';

/** RFC 8594 HTTP-date: the start of 2027, the earliest the contract's "early 2027" can mean. */
const SUNSET = 'Fri, 01 Jan 2027 00:00:00 GMT';

export const DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: DEPRECATED_SINCE,
  Sunset: SUNSET,
};
