import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium; `.ci/run` installs it when missing. No browser is downloaded. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Whether a browser is on this machine; CI always has one. */
export function browserAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * Launches headless Debian chromium. The flags keep it off the network this machine does not
 * have (background networking, component updates, sync) and let it run as root.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const requireHere = createRequire(import.meta.url);
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core inside the page and returns the serious and critical violations. The script is
 * evaluated through the DevTools protocol, so a strict Content-Security-Policy does not block it.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(requireHere.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } })
      .axe;
    return (await axe.run()).violations;
  })) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Saves a full-page screenshot under `test-results/` (gitignored) for review. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(process.cwd(), 'test-results');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * The page as a customer meets it: axe finds nothing serious, nothing overflows at desktop
 * (1280 px) or phone (390 px) width, and a screenshot at each (`<name>-<width>.png`).
 */
export async function lookAtBothWidths(page: Page, name: string): Promise<void> {
  assert.deepEqual(
    (await seriousAxeViolations(page)).map((v) => `${v.id}: ${v.help}`),
    [],
    name,
  );
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.ok(overflow <= 0, `${name} at ${width} px overflows by ${overflow} px`);
    await screenshot(page, `${name}-${width}`);
  }
}
