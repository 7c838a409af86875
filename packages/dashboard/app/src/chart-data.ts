import type { Outcome, SeriesPoint } from '@covgate/client';
import { verdictOf } from './format.js';

/** One run as the chart draws and reads it out. */
export interface Run {
  createdAt: string;
  coverage: number;
  outcome: Outcome;
  branch: string;
  delta: string;
  /** The baseline's coverage; null when nothing was compared; absent when unknown. */
  baseline?: number | null;
}

/**
 * The runs of `GET /v1/executions/series`
 * (`[created_at, coverage, outcome, branch, delta, baseline]`; `baseline` is left out for a
 * record stored before baselines were kept).
 */
export function runsOf(points: readonly SeriesPoint[]): Run[] {
  return points.map(([createdAt, coverage, outcome, branch, delta, ...rest]) => ({
    createdAt,
    coverage,
    outcome,
    branch,
    delta,
    ...(rest.length > 0 ? { baseline: rest[0] ?? null } : {}),
  }));
}

/** uPlot's columns: x (the run's place, oldest 0), then one column per series, null where it has no point. */
export type ChartColumns = [number[], ...(number | null)[][]];

/** The series the chart draws, in column order after x. */
export const CHART_SERIES = [
  { key: 'base-line', base: true, outcome: null },
  { key: 'base-pass', base: true, outcome: 'pass' },
  { key: 'base-warn', base: true, outcome: 'warn' },
  { key: 'base-fail', base: true, outcome: 'fail' },
  { key: 'base-none', base: true, outcome: 'none' },
  { key: 'other-pass', base: false, outcome: 'pass' },
  { key: 'other-warn', base: false, outcome: 'warn' },
  { key: 'other-fail', base: false, outcome: 'fail' },
  { key: 'other-none', base: false, outcome: 'none' },
] as const;

/**
 * Columns for the history chart from runs oldest first: one x per run (its place in the
 * order, so runs evenly spaced however close in time; the axis labels them with their time),
 * each run a point in exactly one verdict series (base branch or other; `none` for a run
 * compared with nothing), plus a line through the base branch.
 */
export function chartColumns(oldestFirst: readonly Run[], baseBranch: string | null) {
  const x: number[] = [];
  const columns = CHART_SERIES.map(() => [] as (number | null)[]);
  oldestFirst.forEach((run, place) => {
    x.push(place);
    const base = run.branch === baseBranch;
    CHART_SERIES.forEach((series, index) => {
      const column = columns[index] as (number | null)[];
      const match =
        series.base === base && (series.outcome === null || series.outcome === verdictOf(run));
      column.push(match ? run.coverage : null);
    });
  });
  return { data: [x, ...columns] as ChartColumns, runs: oldestFirst };
}

/**
 * The x scale of `count` runs (places 0 to count − 1): half a run of room each side, so a
 * single run sits in the middle rather than on the axis, and the first and last points and
 * labels are not cut by the plot's edges.
 */
export function chartXRange(count: number): [number, number] {
  return [-0.5, Math.max(0, count - 1) + 0.5];
}

/**
 * The y scale of runs whose coverage goes from `min` to `max`: whole percents with two points
 * of room each side, not clamped to 0–100, so a run at 0 % or 100 % is drawn whole inside the
 * plot (the axis labels only 0–100).
 */
export function chartYRange(min: number, max: number): [number, number] {
  return [Math.floor(min - 2), Math.ceil(max + 2)];
}
