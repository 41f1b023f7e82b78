// Errors from the engine, as an operator should read them in a crash-loop reason.

/** The engine's own words, without the "(HTTP code 404) unexpected - " dockerode puts before them. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: unknown }).json;
  if (typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string')
    return (json as { message: string }).message;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^\(HTTP code \d+\) [^-]*- /, '').trim();
}
