import { configOf, stackTitle } from './results.js';
import type { ConfigName, ProofResults } from './results.js';

const WIDTH = 960;
const HEIGHT = 420;
const PANEL = { width: 400, height: 270, top: 70, left: [70, 550] as const };
const COLOURS: Record<ConfigName, string> = { stock: '#c0392b', tuned: '#1f6fb2', tutorial: '#d68910', 'tutorial-tuned': '#1e8449' };

interface Point {
  x: number;
  y: number;
}

interface Series {
  config: ConfigName;
  dashed: boolean;
  points: Point[];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Round tick steps (1, 2 or 5 times a power of ten) giving about five ticks up to max. */
function ticks(max: number): number[] {
  const safeMax = max > 0 ? max : 1;
  const rough = safeMax / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? rough;
  const top = Math.ceil(safeMax / step) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, index) => Number((index * step).toPrecision(12)));
}

function panel(left: number, title: string, unit: string, xValues: number[], series: Series[]): string {
  const yTicks = ticks(Math.max(...series.flatMap((line) => line.points.map((point) => point.y))));
  const yMax = yTicks[yTicks.length - 1] ?? 1;
  const xMin = Math.min(...xValues);
  const xMax = Math.max(...xValues);
  const sx = (x: number): number => left + (xMax === xMin ? PANEL.width / 2 : ((x - xMin) / (xMax - xMin)) * PANEL.width);
  const sy = (y: number): number => PANEL.top + PANEL.height - (y / yMax) * PANEL.height;
  const parts: string[] = [
    `<text x="${left + PANEL.width / 2}" y="${PANEL.top - 16}" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (const value of yTicks) {
    parts.push(
      `<line x1="${left}" x2="${left + PANEL.width}" y1="${sy(value)}" y2="${sy(value)}" stroke="#e3e3e3"/>`,
      `<text x="${left - 8}" y="${sy(value) + 4}" text-anchor="end" font-size="12">${value}</text>`,
    );
  }
  for (const value of xValues) {
    parts.push(
      `<line x1="${sx(value)}" x2="${sx(value)}" y1="${PANEL.top + PANEL.height}" y2="${PANEL.top + PANEL.height + 5}" stroke="#333"/>`,
      `<text x="${sx(value)}" y="${PANEL.top + PANEL.height + 20}" text-anchor="middle" font-size="12">${value}</text>`,
    );
  }
  parts.push(
    `<rect x="${left}" y="${PANEL.top}" width="${PANEL.width}" height="${PANEL.height}" fill="none" stroke="#333"/>`,
    `<text x="${left + PANEL.width / 2}" y="${PANEL.top + PANEL.height + 42}" text-anchor="middle" font-size="13">concurrent clients (ab -c)</text>`,
    `<text transform="translate(${left - 48} ${PANEL.top + PANEL.height / 2}) rotate(-90)" text-anchor="middle" font-size="13">${escapeXml(unit)}</text>`,
  );
  for (const line of series) {
    const colour = COLOURS[line.config];
    const path = line.points.map((point) => `${sx(point.x).toFixed(1)},${sy(point.y).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="${line.dashed ? 1.5 : 2.5}"${line.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    for (const point of line.points) {
      parts.push(`<circle cx="${sx(point.x).toFixed(1)}" cy="${sy(point.y).toFixed(1)}" r="${line.dashed ? 2.5 : 4}" fill="${colour}"/>`);
    }
  }
  return parts.join('\n');
}

/**
 * Two panels, requests/s and p99 latency against concurrency, stock against
 * tuned. Solid lines are good requests/s (whole 2xx responses); dashed lines
 * are ab's own rate, which also counts responses cut short by killed children.
 */
export function plotSvg(results: ProofResults): string {
  const xValues = [...new Set(results.runs.map((run) => run.concurrency))].sort((a, b) => a - b);
  const measured = (config: ConfigName) =>
    results.runs
      .filter((run) => run.config === config)
      .sort((a, b) => a.concurrency - b.concurrency)
      .flatMap((run) => ('error' in run.ab ? [] : [{ run, ab: run.ab }]));
  const configs = results.configs.map((config) => config.name);
  const throughput: Series[] = configs.flatMap((config) => [
    {
      config,
      dashed: false,
      points: measured(config).map(({ run, ab }) => ({ x: run.concurrency, y: ab.goodPerSecond })),
    },
    { config, dashed: true, points: measured(config).map(({ run, ab }) => ({ x: run.concurrency, y: ab.requestsPerSecond })) },
  ]);
  const latency: Series[] = configs.map((config) => ({
    config,
    dashed: false,
    points: measured(config).flatMap(({ run, ab }) => (ab.p99Ms === undefined ? [] : [{ x: run.concurrency, y: ab.p99Ms / 1000 }])),
  }));
  const label = (name: ConfigName): string => {
    const config = configOf(results, name);
    return config.poolChildren === undefined
      ? `${config.label} (MaxRequestWorkers ${config.maxRequestWorkers})`
      : `${config.label} (pm.max_children ${config.poolChildren})`;
  };
  // One line per config that lost requests, under the legend, rather than labels that collide with the lines.
  const failureLines = configs.flatMap((config) => {
    const cells = measured(config).flatMap(({ run, ab }) => {
      const bad = ab.failed + ab.non2xx;
      if (bad === 0 && run.cgroup.oomKills === 0) return [];
      const share = ab.complete > 0 ? Math.round((100 * bad) / ab.complete) : 0;
      return [`-c ${run.concurrency}: ${share}% not good, ${run.cgroup.oomKills} OOM kill${run.cgroup.oomKills === 1 ? '' : 's'}`];
    });
    return cells.length === 0 ? [] : [{ config, text: `${label(config)}: ${cells.join('; ')}` }];
  });
  // Two legend entries a row; each row below the first and each failure line make the picture taller.
  const legendRows = Math.ceil(configs.length / 2);
  const failuresTop = HEIGHT + 20 * (legendRows - 1);
  const height = failuresTop + 20 * failureLines.length;
  const legend = configs
    .map((config, index) => {
      const x = 70 + (index % 2) * 420;
      const y = HEIGHT - 22 + 20 * Math.floor(index / 2);
      return [
        `<line x1="${x}" x2="${x + 28}" y1="${y}" y2="${y}" stroke="${COLOURS[config]}" stroke-width="2.5"/>`,
        `<text x="${x + 36}" y="${y + 4}" font-size="13">${escapeXml(label(config))}</text>`,
      ].join('\n');
    })
    .join('\n');
  const handSized = results.configs.some((config) => config.source === 'hand-sized (dev only)');
  const title = `${stackTitle(results)}: ${handSized ? 'stock vs HAND-SIZED (dev only, not tune-lint)' : 'before and after tune-lint --fix'}`;
  const failures = failureLines
    .map(
      (line, index) =>
        `<text x="70" y="${failuresTop + 4 + 20 * index}" font-size="12" fill="${COLOURS[line.config]}">${escapeXml(line.text)}</text>`,
    )
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">
<rect width="${WIDTH}" height="${height}" fill="#fff"/>
<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(title)}</text>
${panel(PANEL.left[0], "requests/s (solid: good, dashed: ab's count)", 'requests per second', xValues, throughput)}
${panel(PANEL.left[1], 'p99 latency', 'seconds', xValues, latency)}
${legend}
${failures}
</svg>
`;
}
