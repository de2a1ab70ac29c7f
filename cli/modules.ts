// --parser-module FILE and --processor-module FILE (repeatable): users' extensions, loaded the same
// way by crawl, worker, describe and clickhouse migrate.
import { loadParserModule, type ParserModule } from '../parsing/parser-module.js';
import { loadProcessorModule, type ProcessorModule } from '../crawl/processor-module.js';
import { UsageError } from './options.js';

export const MODULE_FLAGS = {
  'parser-module': { type: 'string' },
  'processor-module': { type: 'string', multiple: true },
} as const;

export async function loadModules(values: Record<string, unknown>): Promise<{ parserModule?: ParserModule; processorModules: ProcessorModule[] }> {
  try {
    const parserModule = values['parser-module'] ? await loadParserModule(values['parser-module'] as string) : undefined;
    const files = (values['processor-module'] as string[] | undefined) ?? [];
    const processorModules: ProcessorModule[] = [];
    for (const file of files) processorModules.push(await loadProcessorModule(file));
    return { parserModule, processorModules };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
