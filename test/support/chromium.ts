/**
 * The headless Chromium the browser tests drive: Debian's `chromium` (installed by .ci/run), or
 * CHROMIUM_PATH. `--no-sandbox` because the tests run as root in CI; the rest keep the browser from
 * reaching anything beyond the pages a test serves.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Throws, saying how to install it, when there is no browser to launch. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (sudo apt-get install -y chromium), as .ci/run does`);
}

/** The launch options every browser test shares: the browser, headless, with CHROMIUM_ARGS. */
export const chromiumLaunch = { executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] };
