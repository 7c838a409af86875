import type { ComponentChildren } from 'preact';

/** A column's heading: its text, with the class of the heading (`wide`, `number`) where it has one. */
export type Column = string | { label: string; class: string };

/**
 * A table under a row of column headings, in a box that scrolls sideways on a narrow screen
 * (the page itself never does); `children` are its body's rows.
 */
export function ScrollTable(props: {
  class: string;
  columns: readonly Column[];
  children: ComponentChildren;
}) {
  return (
    <div class="table-scroll">
      <table class={props.class}>
        <thead>
          <tr>
            {props.columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.label} scope="col" class={column.class}>
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
