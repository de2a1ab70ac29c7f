// Loaded into every test process by scripts/run-tests.mjs: property tests draw from one fixed seed, so
// a run is repeatable and a red CI is a real failure, not a rare draw. FC_SEED=<n> explores another
// part of the input space (FC_SEED=random picks one and prints it).
import fc from 'fast-check';

const requested = process.env.FC_SEED;
const seed = requested === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(requested ?? 20261126);
if (requested === 'random') process.stderr.write(`fast-check seed ${seed}\n`);
fc.configureGlobal({ seed });
