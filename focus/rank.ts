// A scored URL's place in the frontier (the schedule's rank, 0–254): its focus score dominates,
// in-links still count (a little: four steps per doubling, not sixteen) and depth breaks ties, as for
// any URL. An unscored URL of a focused crawl (a seed, a sitemap's entry) ranks as a URL scored 0
// would: 24, the rank a plain new URL gets (url-state.ts rankOf).
export const UNSCORED = -1;
const BASE = 24;
const SCORE_STEPS = 200;
const INLINK_STEPS = 4;
const MAX_RANK = 254;

export function focusRank(score: number, inlinks: number): number {
  const links = Math.log2(Math.max(1, inlinks));
  return Math.max(0, Math.min(MAX_RANK, Math.round(BASE + SCORE_STEPS * score + INLINK_STEPS * Math.min(links, 6))));
}

/** The score a rank stands for (a redirect's target inherits the score of the URL that redirected). */
export function scoreOfRank(rank: number): number {
  return Math.max(0, Math.min(1, (rank - BASE) / SCORE_STEPS));
}

/** Scores travel quantized to 1/32: a URL found again is passed on when its score rose by a step. */
export const SCORE_STEPS_PASSED = 32;

export function scoreStep(score: number): number {
  return score < 0 ? -1 : Math.round(score * SCORE_STEPS_PASSED);
}
