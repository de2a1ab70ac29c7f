// Which elements hold a page's boilerplate and which its main content, judged from the open tag
// alone (the parse is one streaming pass). Only the simhash uses this: an article republished
// under another site's template must hash like the original, so navigation, headers, footers,
// sidebars and comment sections must not vote. Misjudging costs little: the simhash falls back to
// all text when the content left is small (text-digest.ts), and `text` is never filtered.

const BOILERPLATE_TAGS = new Set(['nav', 'header', 'footer', 'aside', 'menu', 'select']);
const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar']);
// Words of class names and ids that template authors use for boilerplate, matched as whole words
// between spaces, '-' and '_' ("site-header", "nav_main", "comments").
// Bylines and author boxes count too: they are what differs when an article is republished.
const BOILERPLATE_NAMES = new RegExp('(?:^|[\\s_-])(?:nav|navbar|navigation|menu|menubar|header|masthead|footer|' +
  'sidebar|breadcrumbs?|banner|cookies?|consent|share|sharing|social|related|promo|newsletter|subscribe|' +
  'comments?|widgets?|pagination|pager|ads?|advert|advertisement|sponsored|byline|author|bio|meta)(?:$|[\\s_-])', 'i');
// Class names and ids of an article's body ("entry-content", "article-body", id="content").
const MAIN_NAMES = /(?:^|\s)(?:(?:article|entry|post|story|main)[-_]?(?:body|content|text)|content|main)(?:$|\s)/i;

const NEITHER = 0, BOILERPLATE = 1, MAIN = 2;
// Class strings repeat across a page and a site's pages: the answers are cached, boundedly.
const MAX_CACHED = 4_096;
const MAX_NAMES_LENGTH = 256; // longer class lists are not templates' names: judged neither
const judged = new Map<string, number>();

function judge(names: string): number {
  if (names.length > MAX_NAMES_LENGTH) return NEITHER;
  let answer = judged.get(names);
  if (answer === undefined) {
    answer = BOILERPLATE_NAMES.test(names) ? BOILERPLATE : MAIN_NAMES.test(names) ? MAIN : NEITHER;
    if (judged.size >= MAX_CACHED) judged.clear();
    // A copy: the parser's attribute values are slices that would keep their whole page alive.
    judged.set(Buffer.from(names, 'utf16le').toString('utf16le'), answer);
  }
  return answer;
}

/** Navigation, header, footer, sidebar, comments, ads: by tag, ARIA role, or class/id words. */
export function isBoilerplate(name: string, attribs: Record<string, string>): boolean {
  if (BOILERPLATE_TAGS.has(name)) return true;
  // Layout classes on the outer elements ("has-sidebar", "header-fixed") describe the whole page.
  if (name === 'html' || name === 'body' || name === 'main' || name === 'article') return false;
  const role = attribs.role;
  if (role !== undefined && BOILERPLATE_ROLES.has(role.trim().toLowerCase())) return true;
  const cls = attribs.class;
  if (cls !== undefined && judge(cls) === BOILERPLATE) return true;
  const id = attribs.id;
  return id !== undefined && judge(id) === BOILERPLATE;
}

/** <main>, <article>, role=main, itemprop=articleBody, or the usual class/id of an article body. */
export function isMainContent(name: string, attribs: Record<string, string>): boolean {
  if (name === 'main' || name === 'article') return true;
  if (attribs.role?.trim().toLowerCase() === 'main' || attribs.itemprop === 'articleBody') return true;
  const cls = attribs.class;
  if (cls !== undefined && judge(cls) === MAIN) return true;
  const id = attribs.id;
  return id !== undefined && judge(id) === MAIN;
}
