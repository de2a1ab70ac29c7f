// Runs several compiled unit test files in one process (scripts/test-plan.mjs groupUnits): each is
// imported in turn, its tests join the process's root test and run in order, and the reporter names
// the file and line of any that fails. A file that fails to load fails the whole group, loudly.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
