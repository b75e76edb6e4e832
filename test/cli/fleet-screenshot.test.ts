import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Locator, Page } from 'playwright-core';
import { formatBytes } from '../../src/util/units.js';
import { removeScratch, runCli, scratchDir } from '../helpers/cli.js';
import { writeFleetReports } from '../helpers/fleet.js';
import { findTool, inCI } from '../helpers/tools.js';

/*
 * The functions handed to page.evaluate run in Chromium, not in Node. The
 * project compiles without the DOM library (it is a Node tool), so the few
 * page globals they touch are declared here, as the page has them.
 */
declare const document: { documentElement: { scrollWidth: number; scrollHeight: number } };
declare function getComputedStyle(element: unknown): { backgroundColor: string };
declare class Image {
  src: string;
  width: number;
  height: number;
  decode(): Promise<void>;
}
declare class OffscreenCanvas {
  constructor(width: number, height: number);
  getContext(kind: '2d'): {
    drawImage(image: Image, x: number, y: number): void;
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
  } | null;
}
/** What a segment tells about its own text: wider than its box means the label is cut off. */
interface SizedElement {
  scrollWidth: number;
  clientWidth: number;
}

interface FleetJson {
  hosts: {
    name: string;
    ram?: number;
    peak?: number;
    peakAfterPatch?: number;
    consumers: { label: string; kind: string; bytes: number }[];
  }[];
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What the browser drew for one host's row: where its name, bar, segments and RAM mark are, and the texts a person reads. */
interface DrawnRow {
  name: string;
  nameBox: Box;
  bar: Box;
  segments: { box: Box; text: string; clipped: boolean; background: string }[];
  ram: Box | undefined;
  /** The consumers named under the bar, and whether each is drawn whole inside the page. */
  parts: { text: string; box: Box }[];
  verdict: string;
}

const VIEWPORT = { width: 1280, height: 800 };
const SKIP = 'chromium is not installed (.ci/run installs it)';
// As root, headless, on a machine without outside network: no sandbox (root), and no background traffic to Google's hosts.
const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function rgb(css: string): [number, number, number] {
  const match = /^rgba?\((\d+), (\d+), (\d+)/.exec(css);
  assert.ok(match, `not an rgb() colour: ${css}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox();
  assert.ok(box !== null, 'an element that is not drawn');
  return box;
}

/** Every host row as the browser laid it out. */
async function drawnRows(page: Page): Promise<DrawnRow[]> {
  const rows: DrawnRow[] = [];
  for (const row of await page.locator('tr:has(.track)').all()) {
    const ram = row.locator('.ram');
    const segments: DrawnRow['segments'] = [];
    for (const segment of await row.locator('.seg').all()) {
      segments.push({
        box: await boxOf(segment),
        text: await segment.innerText(),
        clipped: await segment.evaluate((element: SizedElement) => element.scrollWidth > element.clientWidth),
        background: await segment.evaluate((element) => getComputedStyle(element).backgroundColor),
      });
    }
    const parts: DrawnRow['parts'] = [];
    for (const part of await row.locator('.part').all()) parts.push({ text: await part.innerText(), box: await boxOf(part) });
    rows.push({
      name: await row.locator('th').innerText(),
      nameBox: await boxOf(row.locator('th')),
      bar: await boxOf(row.locator('.track')),
      segments,
      ram: (await ram.count()) === 0 ? undefined : await boxOf(ram),
      parts,
      verdict: await row.locator('td').nth(1).innerText(),
    });
  }
  return rows;
}

/** The pixels of a PNG at these points, decoded by the browser itself (a canvas in a blank page). */
async function pixelsAt(page: Page, png: Buffer, points: readonly { x: number; y: number }[]): Promise<[number, number, number][]> {
  return page.evaluate(
    async ({ data, at }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = new OffscreenCanvas(image.width, image.height);
      const context = canvas.getContext('2d');
      if (context === null) throw new Error('no 2d context');
      context.drawImage(image, 0, 0);
      return at.map(({ x, y }) => {
        const [r, g, b] = context.getImageData(Math.round(x), Math.round(y), 1, 1).data;
        return [r ?? 0, g ?? 0, b ?? 0] as [number, number, number];
      });
    },
    { data: png.toString('base64'), at: points },
  );
}

/*
 * The fleet page as a person sees it: rendered by headless Chromium from the
 * file alone, then checked against the fleet's JSON on what is on screen:
 * each host's name in the order of how far it overcommits, a bar whose
 * segments are as wide as their sizes say, labelled with those sizes where
 * they fit, the red RAM mark where RAM ends, and the verdict's numbers; the
 * screenshot's own pixels show the colours and the mark.
 */
describe('tune-lint fleet --format html in headless Chromium', () => {
  let dir: string | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let fleet: FleetJson;
  let rows: DrawnRow[] = [];
  let screenshot: Buffer = Buffer.alloc(0);
  const requests: string[] = [];

  before(async () => {
    const executable = findTool('chromium');
    if (executable === undefined) {
      if (inCI) throw new Error(`CI=true but the oracle is missing: ${SKIP}`);
      return;
    }
    dir = scratchDir('tune-lint-fleet-html-');
    writeFleetReports(dir);
    const html = path.join(dir, 'fleet.html');
    fs.writeFileSync(html, runCli(['fleet', dir, '--format', 'html'], { cwd: dir }).stdout);
    fleet = JSON.parse(runCli(['fleet', dir, '--format', 'json'], { cwd: dir }).stdout) as FleetJson;
    browser = await chromium.launch({ executablePath: executable, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(html).href);
    screenshot = await page.screenshot({ path: path.join(dir, 'fleet.png') });
    rows = await drawnRows(page);
  });

  after(async () => {
    await browser?.close();
    if (dir !== undefined) removeScratch(dir);
  });

  it('loads from the file alone and fits the window, so the screenshot holds all of it', async (t) => {
    if (page === undefined) {
      t.skip(SKIP);
      return;
    }
    assert.deepEqual(
      requests.filter((url) => !url.startsWith('file:')),
      [],
    );
    const size = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    assert.ok((size[0] ?? 0) <= VIEWPORT.width && (size[1] ?? 0) <= VIEWPORT.height, `the page scrolls: ${size.join(' x ')} px`);
  });

  it('shows every host by name, most over-committed first, with the verdict in numbers', (t) => {
    if (page === undefined) {
      t.skip(SKIP);
      return;
    }
    assert.deepEqual(
      rows.map((row) => row.name),
      fleet.hosts.map((host) => host.name),
    );
    const tops = rows.map((row) => row.nameBox.y);
    assert.deepEqual(
      tops,
      [...tops].sort((a, b) => a - b),
    );
    for (const [index, host] of fleet.hosts.entries()) {
      const row = rows[index];
      assert.ok(row !== undefined && row.nameBox.width > 0 && row.nameBox.height > 0, `${host.name} is not drawn`);
      if (host.ram === undefined || host.peak === undefined) continue;
      assert.ok(row.verdict.includes(formatBytes(host.ram)), `${host.name}: "${row.verdict}" does not show RAM ${formatBytes(host.ram)}`);
      assert.ok(row.verdict.includes(formatBytes(host.peak)), `${host.name}: "${row.verdict}" does not show the peak`);
    }
    assert.match(rows[0]?.verdict ?? '', /over RAM/);
  });

  it('names every consumer with its size under its bar, whole and on the page', (t) => {
    if (page === undefined) {
      t.skip(SKIP);
      return;
    }
    for (const [index, host] of fleet.hosts.entries()) {
      const row = rows[index];
      assert.ok(row !== undefined);
      assert.deepEqual(
        row.parts.map((part) => part.text.trim()),
        host.consumers.map((consumer) => `${consumer.label} ${formatBytes(consumer.bytes)}`),
      );
      for (const part of row.parts) {
        assert.ok(part.box.width > 0 && part.box.x + part.box.width <= VIEWPORT.width, `${host.name}: "${part.text}" is not on the page`);
        assert.ok(part.box.y >= row.bar.y + row.bar.height, `${host.name}: "${part.text}" is not under the bar`);
      }
    }
  });

  it("draws each segment as wide as its size on its host's scale, labelled with the size where it fits, and the RAM mark where RAM ends", (t) => {
    if (page === undefined) {
      t.skip(SKIP);
      return;
    }
    let labelled = 0;
    for (const [index, host] of fleet.hosts.entries()) {
      const row = rows[index];
      assert.ok(row !== undefined);
      // Each host on its own scale: a small host's bar is as readable as a big one's.
      const scale = Math.max(1, host.ram ?? 0, host.peak ?? 0, host.peakAfterPatch ?? 0);
      assert.equal(row.segments.length, host.consumers.length, host.name);
      let x = row.bar.x;
      for (const [segmentIndex, consumer] of host.consumers.entries()) {
        const segment: DrawnRow['segments'][number] | undefined = row.segments[segmentIndex];
        assert.ok(segment !== undefined);
        const expected = (consumer.bytes / scale) * row.bar.width;
        assert.ok(
          Math.abs(segment.box.width - expected) < 1.5,
          `${host.name} ${consumer.label}: ${segment.box.width} px, expected ${expected}`,
        );
        assert.ok(Math.abs(segment.box.x - x) < 1.5, `${host.name} ${consumer.label} does not follow the segment before it`);
        x = segment.box.x + segment.box.width;
        if (!segment.clipped) {
          assert.equal(segment.text, `${consumer.label} ${formatBytes(consumer.bytes)}`);
          labelled++;
        }
      }
      if (host.ram !== undefined) {
        assert.ok(row.ram !== undefined, `${host.name} has no RAM mark`);
        const expected = row.bar.x + (host.ram / scale) * row.bar.width;
        assert.ok(Math.abs(row.ram.x - expected) < 1.5, `${host.name} RAM mark at ${row.ram.x}, expected ${expected}`);
      }
    }
    assert.ok(labelled > 0, 'no segment shows its label and size in full');
  });

  it("the screenshot's pixels: each wide segment in its colour, the RAM mark red above the bar", async (t) => {
    if (page === undefined) {
      t.skip(SKIP);
      return;
    }
    const samples: { what: string; x: number; y: number; colour: [number, number, number] }[] = [];
    for (const row of rows) {
      for (const segment of row.segments.filter((candidate) => candidate.box.width >= 6)) {
        // Two pixels under the top edge: above the label's glyphs, right of the white separator.
        samples.push({
          what: `${row.name} ${segment.text}`,
          x: segment.box.x + segment.box.width / 2,
          y: segment.box.y + 2,
          colour: rgb(segment.background),
        });
      }
      if (row.ram !== undefined) {
        samples.push({ what: `${row.name} RAM mark`, x: row.ram.x + row.ram.width / 2, y: row.bar.y - 1, colour: [204, 0, 0] });
      }
    }
    assert.ok(samples.length > rows.length);
    const blank = await browser?.newPage();
    assert.ok(blank !== undefined);
    const pixels = await pixelsAt(blank, screenshot, samples);
    for (const [index, sample] of samples.entries()) {
      assert.deepEqual(pixels[index], sample.colour, `${sample.what} at (${sample.x}, ${sample.y})`);
    }
  });
});
