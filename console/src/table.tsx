// The console's lists as tables: one markup for all of them (a scrolling wrapper, a caption for
// screen readers, a header row, a row per item), so pages say only what each column shows.
import type { ComponentChildren } from 'preact';

export interface Column<Row> {
  label: string;
  /** The header is read by screen readers only: a column of buttons needs no visible title. */
  labelHidden?: boolean;
  /** The cell names its row (a row header, `<th scope="row">`) instead of being a plain cell. */
  rowHeader?: boolean;
  class?: string;
  cell: (row: Row) => ComponentChildren;
}

export interface TableProps<Row> {
  caption: ComponentChildren;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  /** A row's data-* attributes, for finding it by what it shows (`data-job`, say). */
  rowData?: (row: Row) => Record<`data-${string}`, string>;
  /** Shown instead of the table when there are no rows; without it, an empty table is shown. */
  empty?: ComponentChildren;
}

export function Table<Row>({ caption, columns, rows, rowKey, rowData, empty }: TableProps<Row>) {
  if (rows.length === 0 && empty !== undefined) return <p class="empty">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col">
                {c.labelHidden ? <span class="sr-only">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowData?.(row)}>
              {columns.map((c) =>
                c.rowHeader ? (
                  <th key={c.label} scope="row" class={c.class}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.label} class={c.class}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
