import type { Execution } from '@covgate/client';

/** uPlot's columns: x (the run's place, oldest 0), then one column per series, null where it has no point. */
export type ChartColumns = [number[], ...(number | null)[][]];

/** The series the chart draws, in column order after x. */
export const CHART_SERIES = [
  { key: 'base-line', base: true, outcome: null },
  { key: 'base-pass', base: true, outcome: 'pass' },
  { key: 'base-warn', base: true, outcome: 'warn' },
  { key: 'base-fail', base: true, outcome: 'fail' },
  { key: 'other-pass', base: false, outcome: 'pass' },
  { key: 'other-warn', base: false, outcome: 'warn' },
  { key: 'other-fail', base: false, outcome: 'fail' },
] as const;

/**
 * Columns for the history chart: oldest first, one x per execution (its place in the order,
 * so runs evenly spaced however close in time; the axis labels them with their time), each
 * execution a point in exactly one outcome series (base branch or other), plus a line
 * through the base branch.
 */
export function chartColumns(newestFirst: readonly Execution[], baseBranch: string | null) {
  const ordered = [...newestFirst].reverse();
  const x: number[] = [];
  const columns = CHART_SERIES.map(() => [] as (number | null)[]);
  ordered.forEach((execution, place) => {
    x.push(place);
    const base = execution.branch === baseBranch;
    CHART_SERIES.forEach((series, index) => {
      const column = columns[index] as (number | null)[];
      const match =
        series.base === base && (series.outcome === null || series.outcome === execution.outcome);
      column.push(match ? execution.coverage : null);
    });
  });
  return { data: [x, ...columns] as ChartColumns, executions: ordered };
}
