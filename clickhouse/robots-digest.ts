// What the sink records about a robots.txt fetch: the digest of the effective rules and the
// crawl-delay for our product token, as the scheduler's robots module reads them.
import { parseRobotsTxt } from '../robots/robots-policy.js';

export interface RobotsSummary {
  digest: string;
  crawlDelayMs: number;
}

export type RobotsAnalyzer = (body: string, url: string, productToken: string) => RobotsSummary;

export const robotsSummary: RobotsAnalyzer = (body, url, productToken) => {
  const policy = parseRobotsTxt(body, url, productToken);
  const ms = policy.crawlDelayMs ?? 0;
  return { digest: policy.digest, crawlDelayMs: Number.isFinite(ms) && ms > 0 ? Math.min(Math.round(ms), 0xffff_ffff) : 0 };
};
