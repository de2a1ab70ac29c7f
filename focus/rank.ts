// A scored URL's place in the frontier (the schedule's rank, 0–254): its focus score dominates,
// in steps of 1/32 (finer differences are noise: URLs a step apart are ordered as any URLs are, by
// in-links, then depth, then arrival); in-links still count, a little (four steps of rank per
// doubling, not sixteen). An unscored URL of a focused crawl (a seed, a sitemap's entry) ranks as a
// URL scored 0 would: 24, the rank a plain new URL gets (url-state.ts rankOf).
export const UNSCORED = -1;
const BASE = 24;
const SCORE_RANKS = 200;
const INLINK_RANKS = 4;
const MAX_RANK = 254;
/** Steps of a score: a URL found again is passed on (dedup) when its score rose by a step, and ranks a step higher. */
export const SCORE_STEPS = 32;

export function scoreStep(score: number): number {
  return score < 0 ? -1 : Math.round(score * SCORE_STEPS);
}

export function focusRank(score: number, inlinks: number): number {
  const links = Math.log2(Math.max(1, inlinks));
  const steps = (SCORE_RANKS * scoreStep(Math.max(0, score))) / SCORE_STEPS;
  return Math.max(0, Math.min(MAX_RANK, Math.round(BASE + steps + INLINK_RANKS * Math.min(links, 6))));
}

/** The score a rank stands for (a redirect's target inherits the score of the URL that redirected). */
export function scoreOfRank(rank: number): number {
  return Math.max(0, Math.min(1, (rank - BASE) / SCORE_RANKS));
}
