import type { ComponentChildren } from 'preact';
import {
  changeKind,
  formatCount,
  formatFileChange,
  formatLines,
  formatPercent,
} from '../run-format.js';
import type { Changes, FileChange, PatchFile } from '../run-types.js';
import { ScrollTable } from './ScrollTable.js';
import { Link } from './ui.js';

/** A path that a narrow screen breaks after its slashes rather than inside a name. */
export function PathText(props: { path: string }) {
  const parts = props.path.split('/');
  return (
    <>
      {parts.map((part, index) =>
        index < parts.length - 1 ? (
          <span key={index}>
            {part}/<wbr />
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** A table of files, one row each: the file's path as the row's heading, then number columns. */
function FileTable<F extends { path: string }>(props: {
  class: string;
  numberColumns: readonly string[];
  files: readonly F[];
  cells: (file: F) => ComponentChildren;
  /** The app path of a file's lines, when the row's path links to them. */
  fileTo?: ((path: string) => string) | undefined;
}) {
  return (
    <ScrollTable
      class={props.class}
      columns={['File', ...props.numberColumns.map((label) => ({ label, class: 'number' }))]}
    >
      {props.files.map((file) => (
        <tr key={file.path}>
          <th scope="row" class="path">
            {props.fileTo ? (
              <Link to={props.fileTo(file.path)}>
                <PathText path={file.path} />
              </Link>
            ) : (
              <PathText path={file.path} />
            )}
          </th>
          {props.cells(file)}
        </tr>
      ))}
    </ScrollTable>
  );
}

function side(percent: number | null, covered: number | null, coverable: number | null) {
  if (coverable === null || covered === null) return <span class="hint">not in the run</span>;
  return (
    <>
      {formatPercent(percent)}
      <span class="lines"> {formatLines(covered, coverable)}</span>
    </>
  );
}

function changeClass(file: FileChange): string {
  const kind = changeKind(file);
  if (kind !== 'changed') return `change change-${kind}`;
  return (file.change ?? 0) < 0 ? 'change change-lost' : 'change change-gained';
}

/** The files whose coverage changed against the baseline run, most lost first. */
export function ChangesTable(props: {
  changes: Changes;
  fileTo?: ((path: string) => string) | undefined;
}) {
  const { changes } = props;
  return (
    <>
      <p class="note" data-testid="changes-count">
        {changes.truncated
          ? `Showing the ${formatCount(changes.files.length)} files that changed most of ${formatCount(changes.total)} changed files.`
          : `${formatCount(changes.total)} ${changes.total === 1 ? 'file' : 'files'} changed coverage, most lost first.`}
      </p>
      <FileTable
        class="changes"
        numberColumns={['Before', 'After', 'Change']}
        files={changes.files}
        fileTo={props.fileTo}
        cells={(file) => (
          <>
            <td class="number">
              {side(file.baseline_percent, file.baseline_covered, file.baseline_coverable)}
            </td>
            <td class="number">{side(file.percent, file.covered, file.coverable)}</td>
            <td class={`number ${changeClass(file)}`}>{formatFileChange(file)}</td>
          </>
        )}
      />
    </>
  );
}

/** The patch's files, most missed lines first. */
export function PatchTable(props: {
  files: readonly PatchFile[];
  fileTo?: ((path: string) => string) | undefined;
}) {
  return (
    <FileTable
      class="patch-files"
      numberColumns={['Covered lines', 'Missed', 'Coverage']}
      files={props.files}
      fileTo={props.fileTo}
      cells={(file) => (
        <>
          <td class="number">{formatLines(file.patch_covered, file.patch_coverable)}</td>
          <td class="number">{formatCount(file.patch_coverable - file.patch_covered)}</td>
          <td class="number">{formatPercent(file.patch_percent)}</td>
        </>
      )}
    />
  );
}
