// Finds the Python venv that scripts/dev-services.sh creates (.services/venv, with warcio,
// prometheus_client and PyYAML): the tests read what our code writes with those independent
// implementations. Outside CI a missing venv skips those tests with a message saying how to get it;
// in CI (CI=true) a missing venv is an error, since scripts/test-all.sh creates it.
import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from dist/warc/ or warc/. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), fileURLToPath(import.meta.url).includes('/dist/') ? '../..' : '..');

export interface PythonTools {
  python: string;
  bin(tool: string): string;
}

const HOW = 'run `scripts/dev-services.sh tools` (installs promtool and .services/venv) to enable it';

/** The venv, or a skip message (outside CI). */
export function pythonTools(): PythonTools | string {
  const venv = join(resolve(process.env.DEV_SERVICES_DIR ?? join(REPO_ROOT, '.services')), 'venv');
  const python = join(venv, 'bin', 'python');
  if (existsSync(python)) return { python, bin: (tool) => join(venv, 'bin', tool) };
  const msg = `needs the Python test venv at ${venv}; ${HOW}`;
  if (process.env.CI) throw new Error(`${msg} (CI must create it: scripts/test-all.sh runs dev-services.sh up)`);
  return msg;
}

/** A command-line tool from PATH (e.g. promtool), or a skip message outside CI. */
export function systemTool(name: string): string | { skip: string } {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  const msg = `needs ${name} on PATH; ${HOW}`;
  if (process.env.CI) throw new Error(msg);
  return { skip: msg };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion, never throwing on a non-zero exit (the test asserts on it). */
export function run(file: string, args: string[], input?: string): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = execFile(file, args, { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return fail(err);
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin!.end(input);
  });
}
