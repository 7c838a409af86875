import type { FileLineCounts } from '@covgate/client';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  CHILDREN_PAGE,
  indexFolders,
  nameOf,
  parentOf,
  type TreeRow,
  visibleRows,
} from '../folder-tree.js';
import { formatCount, formatLines, formatPercent, percentOf } from '../run-format.js';
import type { TreeFolder } from '../run-types.js';

/** A row's branch counts: a folder's sums, a file's own; undefined when it sent none. */
function rowBranches(
  row: Exclude<TreeRow, { kind: 'more' }>,
): { covered: number; total: number } | undefined {
  return row.kind === 'folder' ? row.folder.branches : row.branches;
}

function rowLabel(row: TreeRow): string {
  if (row.kind === 'more') return `Show ${Math.min(CHILDREN_PAGE, row.hidden)} more`;
  return nameOf(row.path);
}

/**
 * The run's folders with their coverage, as a keyboard-usable tree (WAI-ARIA tree pattern:
 * one tab stop; arrows move, Right opens, Left closes or goes to the folder above, Home and
 * End, Enter or Space toggles). Children are built only for open folders, at most
 * {@link CHILDREN_PAGE} at a time, so a 50 000-file run stays quick. With `branches` (the run
 * sent branch counts), two columns more: the branch percent and the branches covered.
 */
export function FolderTree(props: {
  tree: readonly TreeFolder[];
  files: readonly FileLineCounts[] | null;
  branches?: boolean;
  /** Opens a file's lines (a click, Enter or Space on a file's row). */
  onOpenFile?: ((path: string) => void) | undefined;
}) {
  const index = useMemo(() => indexFolders(props.tree, props.files), [props.tree, props.files]);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [shown, setShown] = useState<ReadonlyMap<string, number>>(() => new Map());
  const rows = useMemo(() => visibleRows(index, expanded, shown), [index, expanded, shown]);
  const [focused, setFocused] = useState<string | null>(null);
  const tree = useRef<HTMLDivElement>(null);
  const current = rows.find((row) => row.path === focused) ?? rows[0];

  useEffect(() => {
    const element = tree.current;
    if (!element?.contains(document.activeElement) || !current) return;
    const target = element.querySelector<HTMLElement>(`[data-path="${CSS.escape(current.path)}"]`);
    if (target && target !== document.activeElement) target.focus();
  }, [current]);

  if (rows.length === 0)
    return <p class="state empty">No folder: the run’s files list is empty.</p>;

  const toggle = (path: string, open?: boolean) =>
    setExpanded((before) => {
      const next = new Set(before);
      if (open ?? !next.has(path)) next.add(path);
      else next.delete(path);
      return next;
    });
  const showMore = (row: Extract<TreeRow, { kind: 'more' }>) => {
    setShown((before) =>
      new Map(before).set(row.folder, (before.get(row.folder) ?? CHILDREN_PAGE) + CHILDREN_PAGE),
    );
  };
  const activate = (row: TreeRow) => {
    setFocused(row.path);
    if (row.kind === 'folder' && row.hasChildren) toggle(row.path);
    if (row.kind === 'more') showMore(row);
    if (row.kind === 'file') props.onOpenFile?.(row.path);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (!current) return;
    const at = rows.indexOf(current);
    const move = (to: number) => {
      const row = rows[Math.max(0, Math.min(rows.length - 1, to))];
      if (row) setFocused(row.path);
    };
    switch (event.key) {
      case 'ArrowDown':
        move(at + 1);
        break;
      case 'ArrowUp':
        move(at - 1);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(rows.length - 1);
        break;
      case 'ArrowRight':
        if (current.kind === 'folder' && current.hasChildren) {
          if (current.expanded) move(at + 1);
          else toggle(current.path, true);
        }
        break;
      case 'ArrowLeft':
        if (current.kind === 'folder' && current.expanded) toggle(current.path, false);
        else {
          const parent = current.kind === 'more' ? current.folder : parentOf(current.path);
          if (parent !== '') setFocused(parent);
        }
        break;
      case 'Enter':
      case ' ':
        activate(current);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  return (
    <div class={props.branches ? 'tree-wrap with-branches' : 'tree-wrap'}>
      <div class="tree-head" aria-hidden="true">
        <span>Folder or file</span>
        <span class="number">Coverage</span>
        <span class="number wide">Lines covered</span>
        {props.branches ? (
          <>
            <span class="number">Branches</span>
            <span class="number wide">Branches covered</span>
          </>
        ) : null}
        <span class="number wide">Files</span>
      </div>
      <div role="tree" aria-label="Folders and files" class="tree" ref={tree} onKeyDown={onKeyDown}>
        {rows.map((row) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the tree handles the keys of its rows (one tab stop).
          <div
            key={row.path}
            role="treeitem"
            data-path={row.path}
            aria-level={row.level}
            aria-expanded={row.kind === 'folder' && row.hasChildren ? row.expanded : undefined}
            aria-selected={row === current}
            tabIndex={row === current ? 0 : -1}
            class={`tree-row tree-${row.kind}`}
            style={{ '--indent': Math.min(row.level, 12) - 1 }}
            onClick={() => activate(row)}
            onFocus={() => setFocused(row.path)}
          >
            <span class="tree-name">
              <span class="twisty" aria-hidden="true">
                {row.kind === 'folder' && row.hasChildren ? (row.expanded ? '▾' : '▸') : ''}
              </span>
              <span class="tree-label">{rowLabel(row)}</span>
              {row.kind === 'more' ? (
                <span class="hint"> of {formatCount(row.hidden)} not shown</span>
              ) : null}
              {row.kind === 'folder' && row.rolledUp ? <span class="hint"> rolled up</span> : null}
            </span>
            {row.kind === 'more' ? null : (
              <>
                <span class="number">
                  {formatPercent(row.kind === 'folder' ? row.folder.percent : row.percent)}
                </span>
                <span class="number wide">
                  {row.kind === 'folder'
                    ? formatLines(row.folder.covered, row.folder.coverable)
                    : formatLines(row.covered, row.coverable)}
                </span>
                {props.branches ? <BranchCells branches={rowBranches(row)} /> : null}
                <span class="number wide">
                  {row.kind === 'folder' ? formatCount(row.folder.files) : ''}
                </span>
              </>
            )}
          </div>
        ))}
      </div>
    </div>
  );
}

/** A row's branch percent and counts; a dash for an entry that sent no branch counts. */
function BranchCells(props: { branches: { covered: number; total: number } | undefined }) {
  const { branches } = props;
  return (
    <>
      <span class="number tree-branches">
        {branches ? formatPercent(percentOf(branches.covered, branches.total)) : '—'}
      </span>
      <span class="number wide">
        {branches ? formatLines(branches.covered, branches.total) : '—'}
      </span>
    </>
  );
}
