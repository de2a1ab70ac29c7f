// --parser-module FILE and --processor-module FILE (repeatable): users' extensions, loaded the same
// way by crawl, worker, describe and clickhouse migrate.
import { loadParserModule, type ParserModule } from '../parsing/parser-module.js';
import { loadProcessorModule, type ProcessorModule } from '../crawl/processor-module.js';
import { durationOption, LIMITS, UsageError } from './options.js';
import { DEFAULT_MODULE_TIMEOUT_MS } from '../crawl/bounded-module.js';

export const MODULE_FLAGS = {
  'parser-module': { type: 'string' },
  'processor-module': { type: 'string', multiple: true },
  'module-timeout': { type: 'string' },
} as const;

/**
 * `moduleTimeoutMs` (--module-timeout) bounds a processor module's init and each of its process
 * calls, and each page's parse (with or without a parser module): past it, the record fails.
 */
export async function loadModules(values: Record<string, unknown>): Promise<{ parserModule?: ParserModule; processorModules: ProcessorModule[]; moduleTimeoutMs: number }> {
  const moduleTimeoutMs = durationOption(values, 'module-timeout', LIMITS.moduleTimeoutMs) ?? DEFAULT_MODULE_TIMEOUT_MS;
  try {
    const parserModule = values['parser-module'] ? await loadParserModule(values['parser-module'] as string) : undefined;
    const files = (values['processor-module'] as string[] | undefined) ?? [];
    const processorModules: ProcessorModule[] = [];
    for (const file of files) processorModules.push(await loadProcessorModule(file, { timeoutMs: moduleTimeoutMs }));
    return { parserModule, processorModules, moduleTimeoutMs };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
