// Tables that users' processor modules declare: their columns and sort key, plus the source columns
// every sunk row carries, so a module's rows are written exactly once like the crawl's own.
import { SOURCE_COLUMNS } from './schema.js';

export interface UserTable {
  name: string;
  /** Column name → ClickHouse type, from the types every supported server (18.16 and up) knows. */
  columns: Record<string, string>;
  /** Columns that identify a row: a later write of the same key replaces it (ReplacingMergeTree). */
  orderBy: string[];
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const TYPES = /^(String|UInt(8|16|32|64)|Int(8|16|32|64)|Float(32|64)|DateTime|Date|Array\((String|UInt(8|16|32|64)|Int(8|16|32|64)|Float(32|64))\))$/;
const RESERVED = new Set(['fetches', 'robots', 'parsed_pages', 'duplicates', 'skipped', 'pages', 'links', 'schema_migrations', 'url_freshness']);
const SOURCE = new Set(['sink_id', 'src_topic', 'src_partition', 'src_offset', 'version', 'sunk_at']);

/** Checks a declaration from a user's module; says exactly what is wrong. */
export function checkUserTable(t: unknown, where: string): UserTable {
  const table = t as Partial<UserTable>;
  const fail = (why: string): never => {
    throw new Error(`${where}: table ${JSON.stringify(table?.name ?? '')} ${why}`);
  };
  if (!table || typeof table.name !== 'string' || !NAME.test(table.name)) fail('needs a name of lowercase letters, digits and _');
  if (RESERVED.has(table.name!)) fail('is a name the crawl uses itself');
  const columns = Object.entries(table.columns ?? {});
  if (columns.length === 0) fail('declares no columns');
  for (const [name, type] of columns) {
    if (!NAME.test(name)) fail(`has a column named ${JSON.stringify(name)}: use lowercase letters, digits and _`);
    if (SOURCE.has(name)) fail(`may not declare ${name}: the sink adds it to every row`);
    if (typeof type !== 'string' || !TYPES.test(type)) fail(`has column ${name} of type ${JSON.stringify(type)}; supported: String, (U)Int8–64, Float32/64, Date, DateTime, Array of those`);
  }
  if (!Array.isArray(table.orderBy) || table.orderBy.length === 0 || table.orderBy.some((c) => !(c in table.columns!))) {
    fail('needs orderBy: a non-empty list of its own columns');
  }
  return { name: table.name!, columns: { ...table.columns }, orderBy: [...table.orderBy!] };
}

export function createUserTableSql(t: UserTable): string {
  const columns = Object.entries(t.columns).map(([name, type]) => `  ${name} ${type}`).join(',\n');
  return `CREATE TABLE IF NOT EXISTS ${t.name} (\n${columns},${SOURCE_COLUMNS}\n) ENGINE = ReplacingMergeTree(version) ORDER BY (${t.orderBy.join(', ')})`;
}
