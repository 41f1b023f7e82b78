// A uPlot line chart sized to its container, redrawn when its data changes.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const isValue = (v: number | null | undefined) => v !== null && v !== undefined;

/** Indices of values with no value on either side: a line cannot show them, a dot does. */
function lonely(u: uPlot, seriesIdx: number): number[] {
  const values = u.data[seriesIdx] as (number | null)[];
  return values.flatMap((v, i) => (isValue(v) && !isValue(values[i - 1]) && !isValue(values[i + 1]) ? [i] : []));
}

export interface Line {
  label: string;
  values: (number | null)[];
  color: string;
}

export function Chart({ title, times, lines, unit }: { title: string; times: number[]; lines: Line[]; unit?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const text = getComputedStyle(document.documentElement).getPropertyValue('--text').trim() || '#888';
    const grid = getComputedStyle(document.documentElement).getPropertyValue('--line').trim() || '#8884';
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const options: uPlot.Options = {
      width: Math.max(260, el.clientWidth),
      height: 200,
      series: [
        {},
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          width: 2,
          // A minute with jobs between empty ones is a lone value: drawn as a dot, not lost.
          points: { show: true, size: 6, fill: l.color, filter: lonely },
          value: (_: uPlot, v: number | null) => (v === null ? '—' : `${Math.round(v)}${unit ?? ''}`),
        })),
      ],
      axes: [
        axis,
        {
          ...axis,
          // Wide enough for the longest label drawn ("30000 ms" was cut to "0000 ms").
          size: (_: uPlot, values: string[] | null) => Math.max(48, 14 + 8 * Math.max(0, ...(values ?? []).map((v) => v.length))),
          values: (_: uPlot, ticks: number[]) => ticks.map((t) => `${t}${unit ?? ''}`),
        },
      ],
      scales: { x: { time: true } },
      legend: { live: true },
    };
    const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...lines.map((l) => l.values)];
    plot.current?.destroy();
    plot.current = new uPlot(options, data, el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(260, el.clientWidth), height: 200 }));
    resize.observe(el);
    return () => resize.disconnect();
  }, [times, lines]);
  useEffect(() => () => plot.current?.destroy(), []);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title} over time`} />
    </figure>
  );
}
