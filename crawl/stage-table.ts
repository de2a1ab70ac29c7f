// The stage table of docs/architecture.md, generated from the crawl topology's description (the WARC
// stage included) so that it cannot drift from the declarations: `npm run docs:stages` rewrites it,
// test/docs.test.ts fails when the file differs from what this renders.
import { renderProcessorTable, topologyDescription } from '../engine/api.js';
import { DEAD_LETTERS } from '../engine/dead-letters.js';
import { warcProcessor } from '../stages/warc/warc-stage.js';
import { crawlTopology } from './topology.js';

export const STAGE_TABLE_BEGIN = '<!-- stage table: generated from the topology by `npm run docs:stages`; edit the declarations, not this table -->';
export const STAGE_TABLE_END = '<!-- end of the stage table -->';

export function stageTable(): string {
  return renderProcessorTable(topologyDescription(crawlTopology([warcProcessor])), DEAD_LETTERS);
}

/** `markdown` with the table between the markers replaced by `table`; throws when the markers are missing. */
export function withStageTable(markdown: string, table: string): string {
  const begin = markdown.indexOf(STAGE_TABLE_BEGIN);
  const end = markdown.indexOf(STAGE_TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`the stage table's markers are missing: ${STAGE_TABLE_BEGIN} … ${STAGE_TABLE_END}`);
  return `${markdown.slice(0, begin + STAGE_TABLE_BEGIN.length)}\n${table}\n${markdown.slice(end)}`;
}
