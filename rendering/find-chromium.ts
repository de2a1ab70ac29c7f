// Finds the system's Chromium: the renderer never downloads a browser of its own.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** An explicit path wins, then $CRAWLSTREAM_CHROMIUM, then the first of NAMES on $PATH. */
export function findChromium(explicit?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (explicit) return explicit;
  if (env.CRAWLSTREAM_CHROMIUM) return env.CRAWLSTREAM_CHROMIUM;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of NAMES) {
      const path = join(dir, name);
      if (isExecutableFile(path)) return path;
    }
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
