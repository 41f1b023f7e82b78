// Aligned columns for people; scripts use --json instead.

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
}

/** Rows under their headers, columns two spaces apart, no trailing blanks. */
export function formatTable<Row>(columns: Column<Row>[], rows: Row[]): string {
  const cells = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => oneLine(c.value(row))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return (
    cells
      .map((line) =>
        line
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** One record as `field  value` lines; a nested object's fields as `parent.field`, arrays as compact JSON. */
export function formatRecord(record: Record<string, unknown>): string {
  const entries = Object.entries(record)
    .flatMap(([key, value]): [string, unknown][] =>
      isPlainObject(value) && Object.keys(value).length > 0
        ? Object.entries(value).map(([sub, inner]) => [`${key}.${sub}`, inner])
        : [[key, value]],
    )
    .filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries.map(([key, value]) => `${key.padEnd(width)}  ${oneLine(show(value))}`.trimEnd()).join('\n') + '\n';
}

export function show(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
