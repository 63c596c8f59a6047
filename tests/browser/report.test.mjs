// The HTML report in a real headless browser: it loads with no network,
// its counts match the JSON report of the same run, columns sort, and
// clicking a failing cell shows its first mismatch with a board diagram.
// Run by .ci/run after `cargo test`: node --test tests/browser/
// Env: CHESSGRADE (the binary; default target/release/chessgrade),
// CHROMIUM (default /usr/bin/chromium), SCREENSHOT (write a PNG there).
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

test('a batch report: counts, a failure opens its board', async () => {
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
  await checkCounts(page, [json]);
  const detail = page.locator('section.detail').first();
  assert.equal(await detail.isVisible(), false);
  await page.click('button.open');
  assert.equal(await detail.isVisible(), true);
  assert.match(await detail.locator('.cause').textContent(), /a call did not match the expected answer at line 6/);
  // The missing target (1,1) and the extra one (1,2) are marked on the board.
  const board = detail.locator('table.board').first();
  assert.equal(await board.locator('td.missing').count(), 1);
  assert.equal(await board.locator('td.extra').count(), 1);
  assert.equal(await board.locator('td.from').textContent(), '*♚');
  assert.deepEqual(errors, []);
  await context.close();
});

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
  assert.ok(await shown.locator('table.board td.missing').count() >= 1);
  assert.deepEqual(errors, []);
  if (process.env.SCREENSHOT) {
    await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
    t.diagnostic(`screenshot: ${process.env.SCREENSHOT}`);
  }
  await context.close();
});
