// URLs in log lines keep scheme, host and path only: webhook URLs carry tokens in their query
// or userinfo, and logs are read by more people than the database is.

/** `https://user:pw@host/path?token=x#f` -> `https://host/path`; anything unparsable -> a placeholder. */
export function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
