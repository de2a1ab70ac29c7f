// The core of `crawlstream robots FILE --user-agent UA URL...`, kept free of I/O so it can be tested.
import { productTokenOf } from '../contract/config.js';
import { parseRobotsTxt } from './robots-policy.js';

/** Rules apply by path (see parseRobotsTxt), so the file's own location does not matter here. */
const PLACEHOLDER_ROBOTS_URL = 'http://robots.invalid/robots.txt';

/**
 * For `crawlstream robots FILE --user-agent UA URL...`: one line per URL, "allowed <url>" or
 * "disallowed <url>", in input order. The product token is the UA's first token before '/' or
 * whitespace, lowercased ("crawlstream/0.1 (+…)" → "crawlstream").
 */
export function robotsCommandLines(robotsText: string, userAgent: string, urls: string[]): string[] {
  const policy = parseRobotsTxt(robotsText, PLACEHOLDER_ROBOTS_URL, productTokenOf(userAgent));
  return urls.map((url) => `${policy.isAllowed(url) ? 'allowed' : 'disallowed'} ${url}`);
}
