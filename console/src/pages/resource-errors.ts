// Server error lines ("path: message") grouped by the top-level field they name.
export function errorsByPath(lines: string[], fields: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of lines) {
    const at = line.indexOf(': ');
    const field = at < 0 ? '' : line.slice(0, at).split(/[.[]/)[0]!;
    const key = fields.includes(field) ? field : '';
    (out[key] ??= []).push(key === '' ? line : line.slice(at + 2));
  }
  return out;
}
