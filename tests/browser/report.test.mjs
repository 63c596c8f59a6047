// The HTML reports in a real headless browser: they load with no network;
// a submission's page (the student's) shows its failures first, each with
// its board pictures, then its passes; the class page's counts match the
// JSON report of the same run, columns sort, and clicking a failing cell
// shows its first mismatch with its pictures; a failing Lab 3, JHU and CUHK
// scenario are screenshotted as their students see them (the page, the
// Gradescope output, PrairieLearn's images, `explain --format html`), and
// the Gradescope JSON's HTML is parsed as XML (well-formed).
// Run by .ci/run after `cargo test`: node --test tests/browser/
// Env: CHESSGRADE (the binary; default target/release/chessgrade),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOT (write the class page's
// PNG there), SCREENSHOTS (a folder: keep the students' pages' PNGs there;
// without it they are taken in a temporary folder and checked, then removed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = process.env.CHESSGRADE || path.join(repo, 'target/release/chessgrade');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'chessgrade-html-'));
let browser;

function cg(args, cwd) {
  const r = spawnSync(bin, [...args, '--color', 'never'], { cwd, encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')}: ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    // launch() gives every run a fresh temporary profile (its --user-data-dir).
  });
});

after(async () => {
  await browser?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

async function open(file) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const requests = [];
  context.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + file);
  return { page, requests, errors, context };
}

async function checkCounts(page, json) {
  const t = { passed: 0, failed: 0, errors: 0, points: 0, possible: 0 };
  for (const r of json) {
    for (const s of r.scenarios) {
      if (s.status === 'pass' || s.status === 'updated') t.passed++;
      else if (s.status === 'fail') t.failed++;
      else t.errors++;
      t.points += s.earned;
      t.possible += s.points;
    }
  }
  for (const k of Object.keys(t)) {
    assert.equal(Number(await page.textContent('#' + k)), t[k], k);
  }
  assert.equal(await page.locator('#results tbody tr').count(), json.length);
  const fails = json.flatMap((r) => r.scenarios).filter((s) => s.status !== 'pass').length;
  assert.equal(await page.locator('button.open').count(), fails);
}

test('a submission\'s page: failures first with their pictures shown, then the passes', async () => {
  // A project whose snapshot for a/x.txt was edited: the king "may" go to (1,1), not (1,2).
  const dir = path.join(work, 'batch');
  fs.mkdirSync(path.join(dir, 'scenarios/a'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'scenarios/b'), { recursive: true });
  const scen = '1\n4 4\nw r 3 0\nb k 0 3\n~\nisValidScan\nmovePiece 3 0 0 0\n';
  fs.writeFileSync(path.join(dir, 'scenarios/a/x.txt'), scen);
  fs.writeFileSync(path.join(dir, 'scenarios/b/y.txt'), scen);
  cg(['run', '--accept'], dir);
  const snap = path.join(dir, 'snapshots/scenario@a__x.txt.snap');
  fs.writeFileSync(snap, fs.readFileSync(snap, 'utf8').replace('  V 0 3 1 2\n', '  V 0 3 1 1\n'));
  cg(['run', '--format', 'html', '--output', 'report.html'], dir);
  cg(['run', '--format', 'json', '--output', 'report.json'], dir);
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
  const { page, requests, errors, context } = await open(path.join(dir, 'report.html'));
  assert.deepEqual(requests, [], 'no network');
  await checkStudentCounts(page, json);
  // The failure comes first and its picture is shown, nothing to click.
  const failure = page.locator('section.scenario.fail').first();
  assert.equal(await failure.isVisible(), true);
  assert.match(await failure.locator('h3').textContent(), /a\/x\.txt/);
  assert.match(await failure.locator('.cause').textContent(), /a call did not match the expected answer at line 6/);
  // The missing target (1,1) and the extra one (1,2) are marked on the board.
  const board = failure.locator('svg.board-picture').first();
  assert.equal(await board.isVisible(), true);
  assert.equal(await board.locator('rect.missing:not(.key)').count(), 1);
  assert.equal(await board.locator('rect.extra:not(.key)').count(), 1);
  assert.equal(await board.locator('rect.from:not(.key)').count(), 1);
  assert.equal((await board.locator('text.piece.black').textContent()).codePointAt(0), 0x265a); // ♚
  await checkPicturesDrawn(page);
  assert.deepEqual(await page.locator('ul.passes li').allTextContents(), ['✓ b/y.txt 1/1']);
  const order = await page.locator('h2').allTextContents();
  assert.deepEqual(order.slice(0, 2), ['Failed (1)', 'Passed (1)']);
  assert.deepEqual(errors, []);
  await context.close();
});

/// The student's page's totals match the JSON report.
async function checkStudentCounts(page, json) {
  const t = { passed: 0, failed: 0, errors: 0, points: 0, possible: 0 };
  for (const s of json.scenarios) {
    if (s.status === 'pass' || s.status === 'updated') t.passed++;
    else if (s.status === 'fail') t.failed++;
    else t.errors++;
    t.points += s.earned;
    t.possible += s.points;
  }
  for (const k of Object.keys(t)) {
    assert.equal(Number(await page.textContent('#' + k)), t[k], k);
  }
  const failing = json.scenarios.filter((s) => s.status !== 'pass').length;
  assert.equal(Number(await page.textContent('#scenarios')), json.scenarios.length);
  assert.ok((await page.locator('section.scenario.fail').count()) <= failing);
}

/// Every picture on the page is drawn: a box of its own size, its pieces'
/// glyphs inside their squares, nothing wider than the page.
async function checkPicturesDrawn(page) {
  const width = await page.evaluate(() => document.documentElement.clientWidth);
  for (const svg of await page.locator('svg.board-picture:visible').all()) {
    const box = await svg.boundingBox();
    assert.ok(box.width > 40 && box.height > 40, JSON.stringify(box));
    assert.ok(box.x + box.width <= width + 1, `a picture wider than the page: ${JSON.stringify(box)}`);
    // A glyph sits inside its square (a font with no chess glyphs would
    // draw boxes of another size, or nothing).
    const piece = svg.locator('text.piece').first();
    if (await piece.count()) {
      const g = await piece.boundingBox();
      assert.ok(g.width > 5 && g.height > 5, `an empty glyph: ${JSON.stringify(g)}`);
    }
  }
}

test('a class report: a row per submission, sorting, the failing cells', async (t) => {
  const klass = path.join(work, 'class');
  for (const s of ['lab3-correct', 'lab3-mutant-no-double-step', 'hostile-compile-error']) {
    fs.cpSync(path.join(repo, 'tests/fixtures/submissions', s), path.join(klass, s), { recursive: true });
  }
  const out = path.join(work, 'class.html');
  const outJson = path.join(work, 'class.json');
  const args = ['grade', '--class', klass, '--filter', 'lab3/pawns', path.join(repo, 'scenarios'),
    '--root', path.join(repo, 'scenarios'), '--snapshots', path.join(repo, 'snapshots'), '-q'];
  cg([...args, '--format', 'html', '--output', out], repo);
  cg([...args, '--format', 'json', '--output', outJson], repo);
  const json = JSON.parse(fs.readFileSync(outJson, 'utf8')).submissions;
  const { page, requests, errors, context } = await open(out);
  assert.deepEqual(requests, [], 'no network');
  await checkCounts(page, json);
  const names = async () => page.locator('#results tbody td.subject').allTextContents();
  assert.deepEqual(await names(), ['hostile-compile-error', 'lab3-correct', 'lab3-mutant-no-double-step']);
  await page.click('#results th:nth-child(2)'); // points, ascending
  assert.deepEqual(await names(), ['hostile-compile-error', 'lab3-mutant-no-double-step', 'lab3-correct']);
  await page.click('#results th:nth-child(2)'); // descending
  assert.equal((await names())[0], 'lab3-correct');
  // The mutant's first failing cell: a scan with missing double steps.
  const row = page.locator('#results tbody tr', { hasText: 'lab3-mutant-no-double-step' });
  await row.locator('button.open').first().click();
  const shown = page.locator('section.detail:visible');
  assert.equal(await shown.count(), 1);
  assert.match(await shown.locator('h2').textContent(), /lab3-mutant-no-double-step/);
  assert.ok(await shown.locator('svg.board-picture rect.missing').count() >= 1);
  await checkPicturesDrawn(page);
  assert.deepEqual(errors, []);
  if (process.env.SCREENSHOT) {
    await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
    t.diagnostic(`screenshot: ${process.env.SCREENSHOT}`);
  }
  await context.close();
});

// ---------------------------------------------------------------------
// A failing Lab 3, JHU and CUHK scenario, as their students see them.
// ---------------------------------------------------------------------

const shots = process.env.SCREENSHOTS || path.join(work, 'shots');
fs.mkdirSync(shots, { recursive: true });

/// The JHU starter files a student must not change (the console fixtures'
/// README), as the overlay folder staff pass.
function jhuOverlay() {
  const overlay = path.join(work, 'jhu-overlay');
  fs.mkdirSync(overlay, { recursive: true });
  for (const f of ['Makefile', 'Piece.h', 'CreatePiece.h', 'CreatePiece.cpp', 'Terminal.h', 'Exceptions.h', 'Mystery.h']) {
    fs.copyFileSync(path.join(repo, '../shared/jhu-course/starter', f), path.join(overlay, f));
  }
  return overlay;
}

const courses = [
  {
    name: 'lab3',
    upload: 'tests/fixtures/submissions/lab3-mutant-no-double-step',
    scenario: 'scenarios/lab3/pawns/double_step_from_start_rows.txt',
    extra: () => [],
    // Two pawns that should double-step: their squares and targets marked.
    marks: { from: 2, missing: 2 },
    rows: ['0', '1', '2', '3', '4', '5'],
  },
  {
    name: 'jhu',
    upload: 'tests/fixtures/console/jhu-mutant-wrong-check',
    scenario: 'scenarios/jhu/mates/rook_ladder_mate_in_two.txt',
    extra: () => ['--overlay', jhuOverlay()],
    // The move that gives check: B1 to B7, ranks counted from the bottom.
    move: 'the step\'s move: from B1 to B7',
    rows: ['8', '7', '6', '5', '4', '3', '2', '1'],
  },
  {
    name: 'cuhk',
    upload: 'tests/fixtures/console/cuhk-mutant-wrong-winner',
    scenario: 'scenarios/cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt',
    extra: () => [],
    // Black's bishop takes the king: B5 to E8, row 1 on top.
    move: 'the step\'s move: from B5 to E8',
    rows: ['1', '2', '3', '4', '5', '6', '7', '8'],
  },
];

/// `grade` of the course's failing upload in `format` to `out`.
function gradeTo(c, format, out) {
  cg(['grade', '--submission', path.join(repo, c.upload), path.join(repo, c.scenario),
    '--root', path.join(repo, 'scenarios'), '--snapshots', path.join(repo, 'snapshots'),
    ...c.extra(), '--format', format, '--output', out, '-q'], repo);
}

async function shoot(page, name) {
  const file = path.join(shots, name);
  await page.screenshot({ path: file, fullPage: true });
  assert.ok(fs.statSync(file).size > 10000, `${file} is a picture`);
}

for (const c of courses) {
  test(`a failing ${c.name} scenario: the student's page, Gradescope, PrairieLearn and explain`, async (t) => {
    const html = path.join(work, `${c.name}.html`);
    gradeTo(c, 'html', html);
    const { page, requests, errors, context } = await open(html);
    assert.deepEqual(requests, [], 'no network');
    const failure = page.locator('section.scenario.fail');
    assert.equal(await failure.count(), 1);
    const board = failure.locator('svg.board-picture').first();
    assert.equal(await board.isVisible(), true);
    // The course's own coordinates along the left edge.
    assert.deepEqual(await board.locator('text.row').allTextContents(), c.rows);
    for (const [mark, n] of Object.entries(c.marks || {})) {
      assert.equal(await board.locator(`rect.${mark}:not(.key)`).count(), n, mark);
    }
    if (c.move) {
      assert.equal(await board.locator('g.arrow').count(), 1);
      assert.ok((await board.locator('text.legend').allTextContents()).includes(c.move));
    }
    await checkPicturesDrawn(page);
    await shoot(page, `student-${c.name}.png`);
    assert.deepEqual(errors, []);
    await context.close();

    // Gradescope: the failed test's output is HTML, well-formed, its
    // picture an image that loads.
    const gs = path.join(work, `${c.name}-gradescope.json`);
    gradeTo(c, 'gradescope', gs);
    const test = JSON.parse(fs.readFileSync(gs, 'utf8')).tests.find((x) => x.status === 'failed');
    assert.equal(test.output_format, 'html');
    const gsPage = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const xmlErrors = await gsPage.evaluate((fragment) => {
      const doc = new DOMParser().parseFromString(
        `<div xmlns="http://www.w3.org/1999/xhtml">${fragment}</div>`, 'application/xhtml+xml');
      return doc.getElementsByTagName('parsererror').length;
    }, test.output);
    assert.equal(xmlErrors, 0, 'the Gradescope HTML is well-formed');
    await gsPage.setContent(`<!DOCTYPE html><meta charset="utf-8"><body style="font-family:sans-serif">${test.output}</body>`);
    const img = gsPage.locator('img').first();
    await img.waitFor();
    await gsPage.waitForFunction(() => [...document.images].every((i) => i.complete));
    assert.ok(await img.evaluate((i) => i.naturalWidth > 40), 'the picture loads as an image');
    await shoot(gsPage, `gradescope-${c.name}.png`);

    // PrairieLearn: the failed test's images load too.
    const pl = path.join(work, `${c.name}-pl.json`);
    gradeTo(c, 'prairielearn', pl);
    const plTest = JSON.parse(fs.readFileSync(pl, 'utf8')).tests.find((x) => x.points < x.max_points);
    assert.ok(plTest.images.length >= 1);
    await gsPage.setContent(plTest.images.map((i) => `<p>${i.label}</p><img src="${i.url}">`).join(''));
    await gsPage.waitForFunction(() => [...document.images].every((i) => i.complete));
    assert.ok(await gsPage.evaluate(() => [...document.images].every((i) => i.naturalWidth > 40)));
    await gsPage.close();

    // explain --format html: every step, the first mismatch marked.
    const walk = path.join(work, `${c.name}-explain.html`);
    cg(['explain', path.join(repo, c.scenario), '--submission', path.join(repo, c.upload),
      '--root', path.join(repo, 'scenarios'), '--snapshots', path.join(repo, 'snapshots'),
      ...c.extra(), '--format', 'html', '-o', walk], repo);
    const w = await open(walk);
    assert.deepEqual(w.requests, [], 'no network');
    const mismatch = w.page.locator('section.step.mismatch');
    assert.equal(await mismatch.count(), 1);
    await w.page.click('nav.walk a.bad');
    assert.ok(await mismatch.locator('svg.board-picture').count() >= 1);
    assert.ok(await w.page.locator('section.step').count() > 1, 'the steps around the mismatch too');
    await checkPicturesDrawn(w.page);
    // The mismatch's section, as a student scrolls to it.
    const file = path.join(shots, `explain-${c.name}.png`);
    await mismatch.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 10000, `${file} is a picture`);
    assert.deepEqual(w.errors, []);
    await w.context.close();
    t.diagnostic(`screenshots in ${shots}`);
  });
}
