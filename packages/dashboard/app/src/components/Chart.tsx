import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { CHART_SERIES, chartColumns, chartXRange, chartYRange, type Run } from '../chart-data.js';
import {
  formatAxisTime,
  formatComparison,
  formatCoverage,
  formatTimestamp,
  VERDICT_LABEL,
  verdictOf,
} from '../format.js';

const COLOURS = { pass: '#1a7f37', warn: '#b35900', fail: '#cf222e', none: '#57606a' } as const;
/** Steps between labelled runs on the x axis: whole runs only. */
const RUN_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

function pointsDrawn(u: uPlot): number {
  let drawn = 0;
  for (let i = 2; i < u.series.length; i++) {
    const column = u.data[i] ?? [];
    const [from, to] = u.series[i]?.idxs ?? [0, -1];
    for (let j = from; j <= to; j++) if (column[j] != null) drawn++;
  }
  return drawn;
}

/**
 * Coverage over the runs, one evenly spaced point per execution (oldest left, the axis
 * labelled with the runs' times): filled dots and a line for the base branch,
 * hollow dots for other branches, coloured by outcome (the text readout names it too).
 */
export function HistoryChart(props: { runs: readonly Run[]; baseBranch: string | null }) {
  const host = useRef<HTMLDivElement>(null);
  const [hovered, setHovered] = useState<Run | null>(null);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const { data, runs } = chartColumns(props.runs, props.baseBranch);
    const width = () => Math.max(280, element.clientWidth);
    const series: uPlot.Series[] = [
      {},
      ...CHART_SERIES.map((s): uPlot.Series => {
        const colour = s.outcome ? COLOURS[s.outcome] : '#57606a';
        if (s.outcome === null) {
          return {
            label: 'base branch',
            stroke: '#8c959f',
            width: 1.5,
            spanGaps: true,
            points: { show: false },
          };
        }
        return {
          label: s.key,
          stroke: colour,
          width: 0,
          paths: () => null,
          points: {
            show: true,
            size: s.base ? 7 : 8,
            width: s.base ? 1 : 2,
            stroke: colour,
            fill: s.base ? colour : '#ffffff',
          },
        };
      }),
    ];
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        series,
        legend: { show: false },
        scales: {
          x: { time: false, range: () => chartXRange(runs.length) },
          y: { range: (_u, min, max) => chartYRange(min, max) },
        },
        axes: [
          {
            incrs: RUN_STEPS,
            space: 100,
            values: (_u, ticks) =>
              ticks.map((place) => {
                const run = runs[place];
                return run ? formatAxisTime(run.createdAt) : '';
              }),
          },
          {
            // The room below 0 % and above 100 % is not labelled: coverage never goes there.
            values: (_u, ticks) => ticks.map((t) => (t < 0 || t > 100 ? '' : `${t}%`)),
            size: 56,
          },
        ],
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        hooks: {
          draw: [(u) => element.setAttribute('data-points', String(pointsDrawn(u)))],
          setCursor: [
            (u) => {
              const index = u.cursor.idx;
              setHovered(index == null ? null : (runs[index] ?? null));
            },
          ],
        },
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [props.runs, props.baseBranch]);

  return (
    <figure class="chart">
      <div
        ref={host}
        class="chart-canvas"
        role="img"
        aria-label={`Coverage history: ${props.runs.length} runs, oldest on the left`}
      />
      <figcaption>
        <span class="key">
          <span class="dot filled" aria-hidden="true" /> base branch ({props.baseBranch ?? 'none'})
        </span>
        <span class="key">
          <span class="dot hollow" aria-hidden="true" /> other branches
        </span>
        <span class="key">
          <span class="dot outcome-pass" aria-hidden="true" /> pass
        </span>
        <span class="key">
          <span class="dot outcome-warn" aria-hidden="true" /> warn
        </span>
        <span class="key">
          <span class="dot outcome-fail" aria-hidden="true" /> fail
        </span>
        <span class="key">
          <span class="dot outcome-none" aria-hidden="true" /> no baseline
        </span>
      </figcaption>
      <p class="readout" aria-live="off">
        {hovered
          ? `${formatTimestamp(hovered.createdAt)} · ${hovered.branch} · ${formatCoverage(hovered.coverage)} · ${VERDICT_LABEL[verdictOf(hovered)]} · ${formatComparison(hovered)}`
          : 'Point at the chart to read a run.'}
      </p>
    </figure>
  );
}
