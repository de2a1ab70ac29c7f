// Query parameters that never select content. Dropping them keeps one page from being crawled once
// per campaign link or per visitor session; session ids in particular turn a site into an endless
// supply of "new" URLs (the classic session-id spider trap). Names are compared lowercased.

const TRACKING = new Set([
  // ad click ids
  'gclid', 'gclsrc', 'gbraid', 'wbraid', 'dclid', 'fbclid', 'msclkid', 'yclid', 'ysclid', 'twclid', 'ttclid',
  'li_fat_id', 'igshid', 'igsh', 'epik', 'rb_clickid', 'srsltid', 'wickedid', 'irclickid',
  // analytics and e-mail campaigns
  '_ga', '_gl', 'mc_cid', 'mc_eid', 'mkt_tok', '_hsenc', '_hsmi', '__hssc', '__hstc', '__hsfp', 'hsctatracking',
  'oly_anon_id', 'oly_enc_id', 'vero_id', 'vero_conv', '_openstat', 's_cid', 'wt.mc_id', 'wt.mc_ev',
  '_branch_match_id', 'ref_src',
  // Matomo campaigns, listed one by one because a bare "pk_" prefix also catches primary keys
  'pk_campaign', 'pk_cpn', 'pk_kwd', 'pk_keyword', 'pk_source', 'pk_medium', 'pk_content', 'pk_cid',
  'mtm_campaign', 'mtm_cpn', 'mtm_kwd', 'mtm_keyword', 'mtm_source', 'mtm_medium', 'mtm_content', 'mtm_cid',
  'mtm_group', 'mtm_placement',
]);

/** Families of campaign parameters: utm_source, utm_medium, piwik_kwd, hsa_acc, … */
const TRACKING_PREFIXES = ['utm_', 'piwik_', 'matomo_', 'hsa_'];

const SESSION = new Set([
  'jsessionid', 'phpsessid', 'sid', 'sessionid', 'session_id', 'session-id', 'sessid', 'sess_id',
  'cfid', 'cftoken', 'oscsid', 'zenid', 'sessionkey', 'session_key',
]);

/** Classic ASP appends a random suffix: ASPSESSIONIDQQGGGNCU. */
const SESSION_PREFIXES = ['aspsessionid'];

function hasPrefix(name: string, prefixes: readonly string[]): boolean {
  for (const p of prefixes) if (name.startsWith(p)) return true;
  return false;
}

/** `name` must already be lowercased. */
export function isTrackingParam(name: string): boolean {
  return TRACKING.has(name) || hasPrefix(name, TRACKING_PREFIXES);
}

/** `name` must already be lowercased. */
export function isSessionParam(name: string): boolean {
  return SESSION.has(name) || hasPrefix(name, SESSION_PREFIXES);
}
