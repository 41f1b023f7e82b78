// JSON given on the command line: inline text, a file, or `-` for stdin.
import { readFileSync } from 'node:fs';
import { CliError, EXIT_USAGE } from '../options.js';

export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${source} is not valid JSON: ${(error as Error).message}`, EXIT_USAGE);
  }
}

/** How messages name a file given on the command line: `-` is stdin. */
export function sourceName(file: string): string {
  return file === '-' ? 'stdin' : file;
}

/** The text of a file, or of stdin for `-`. */
export function readText(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
}

/** The JSON in a file, or on stdin for `-`. */
export function readJsonFile(file: string): unknown {
  return parseJson(readText(file), sourceName(file));
}

/** A JSON object from a file or stdin: request bodies are objects. */
export function readJsonObjectFile(file: string): Record<string, unknown> {
  const value = readJsonFile(file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(`${sourceName(file)} must hold a JSON object`, EXIT_USAGE);
  }
  return value as Record<string, unknown>;
}
