// Where an operation's text values hold a NUL character (decision 48): string literals of the
// document and string values of the variables, at any depth. Arguments that do not pass through a
// REST body's schema (ids, names looked up) reach the store as they are, and PostgreSQL refuses a NUL.
import { Kind, visit, type DocumentNode } from 'graphql';

function variablePaths(value: unknown, path: string, found: string[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => variablePaths(item, `${path}[${i}]`, found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) variablePaths(item, `${path}.${key}`, found);
  }
}

/** One `where: must not contain a NUL character` line per value that holds one. */
export function nulValues(document: DocumentNode, variables: Record<string, unknown> | null | undefined): string[] {
  const found: string[] = [];
  visit(document, {
    [Kind.STRING]: (node) => {
      if (node.value.includes('\u0000')) found.push(`a string at line ${node.loc?.startToken.line ?? '?'}`);
    },
  });
  for (const [name, value] of Object.entries(variables ?? {})) variablePaths(value, `$${name}`, found);
  return found.map((where) => `${where}: must not contain a NUL character`);
}
