// A worker's environment in the forms it is handed on: to a shell, a Docker --env-file, a
// program (JSON) or a `docker run` command line.
import { CliError } from '../options.js';

export const ENV_FORMATS = ['shell', 'env-file', 'json', 'docker-args'] as const;
export type EnvFormat = (typeof ENV_FORMATS)[number];

/** Single quotes keep everything literal, `$ID` placeholders included; a quote inside is closed, escaped, reopened. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function formatEnv(env: Record<string, string>, format: EnvFormat): string {
  const entries = Object.entries(env);
  switch (format) {
    case 'shell':
      // `export`, so a worker started after `eval` sees the variables.
      return entries.map(([key, value]) => `export ${key}=${shellQuote(value)}`).join('\n');
    case 'env-file':
      // Docker reads an env file verbatim to the end of the line: quotes would become part of
      // the value, and a line break cannot be written at all.
      return entries
        .map(([key, value]) => {
          if (/[\r\n]/.test(value))
            throw new CliError(`${key} holds a line break, which an env file cannot carry; use --format json or shell`);
          return `${key}=${value}`;
        })
        .join('\n');
    case 'json':
      return JSON.stringify(env, null, 2);
    case 'docker-args':
      return entries.map(([key, value]) => `-e ${shellQuote(`${key}=${value}`)}`).join(' ');
  }
}
