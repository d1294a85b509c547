// The text of src/db/schema.ts from the catalog's tables and refinements.ts: one interface per
// table, the named unions, and the Database interface Kysely is typed with.
import type { CatalogColumn, CatalogTable } from './catalog.js';
import { COLUMN_TYPES, FILLED_BY_TRIGGER, IMPORTS, NAMED_UNIONS, REEXPORTS, type NamedUnion } from './refinements.js';

/** As postgres.js reads each type (int8 and numeric come as strings: they may not fit a number). */
const SCALARS: Record<string, string> = {
  text: 'string',
  varchar: 'string',
  bpchar: 'string',
  uuid: 'string',
  tsvector: 'string',
  int8: 'string',
  numeric: 'string',
  int2: 'number',
  int4: 'number',
  float4: 'number',
  float8: 'number',
  bool: 'boolean',
  timestamptz: 'Date',
  timestamp: 'Date',
  jsonb: 'Json',
  json: 'Json',
  bytea: 'Buffer',
};

/** Kysely's Generated<T> wraps T whole; a column typed by a ColumnType needs the insert type widened instead. */
const DEFAULTED =
  '/** A column typed by a ColumnType that has a default: an insert may leave it out (Generated<> for these). */\n' +
  'type Defaulted<C> = C extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : C;';

const JSON_TYPES: Record<string, string> = {
  Json:
    '/** jsonb holding an object (unless its check says array): read parsed, written as an object or JSON text. */\n' +
    'type Json = ColumnType<Record<string, unknown>, string | Record<string, unknown>, string | Record<string, unknown>>;',
  JsonArray:
    '/** jsonb holding an array (its check says so). */\n' +
    'type JsonArray = ColumnType<unknown[], string | unknown[], string | unknown[]>;',
};

const HEADER = `// Row types of the doco schema, for Kysely. GENERATED from the migrated schema by
// \`npm run db:types\` (scripts/db-types/): do not edit. What the catalog cannot say (the named
// unions, a jsonb column's shape, columns a trigger fills) is in scripts/db-types/refinements.ts;
// test/db/schema-types.test.ts fails when this file and migrations/ disagree.`;

const quote = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** `node_versions` → `NodeVersionTable`, `touches` → `TouchTable`, `connector_deliveries` → `ConnectorDeliveryTable`. */
export function interfaceName(table: string): string {
  const words = table.split('_');
  const last = words
    .pop()!
    .replace(/ies$/, 'y')
    .replace(/(ch|sh|ss|x)es$/, '$1')
    .replace(/([^s])s$/, '$1');
  return [...words, last].map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') + 'Table';
}

function findColumn(tables: CatalogTable[], key: string): CatalogColumn {
  const [table, column] = key.split('.');
  const found = tables.find((t) => t.name === table)?.columns.find((c) => c.name === column);
  if (!found) throw new Error(`refinements.ts names doco.${key}, which the schema does not have`);
  return found;
}

/** Each named union's values, checked against every column it types; the union naming each column. */
function namedUnions(tables: CatalogTable[]): { values: Map<NamedUnion, string[]>; byColumn: Map<CatalogColumn, NamedUnion> } {
  const values = new Map<NamedUnion, string[]>();
  const byColumn = new Map<CatalogColumn, NamedUnion>();
  for (const u of NAMED_UNIONS) {
    const allowed = findColumn(tables, u.from).allowed;
    if (!allowed) throw new Error(`${u.values}: doco.${u.from} has no check listing its values`);
    values.set(u, allowed);
    for (const key of [u.from, ...u.also]) {
      const column = findColumn(tables, key);
      if (column.allowed && column.allowed.join('\n') !== allowed.join('\n')) {
        throw new Error(`${u.values}: doco.${key} allows ${column.allowed.join(', ')}, but doco.${u.from} allows ${allowed.join(', ')}`);
      }
      byColumn.set(column, u);
    }
  }
  return { values, byColumn };
}

function columnType(table: CatalogTable, column: CatalogColumn, named: NamedUnion | undefined, uses: Set<string>): string {
  const key = `${table.name}.${column.name}`;
  let base = COLUMN_TYPES[key] ?? named?.type;
  if (base === undefined && column.allowed) base = column.allowed.map(quote).join(' | ');
  if (base === undefined) {
    const scalar = SCALARS[column.type];
    if (!scalar) throw new Error(`no TypeScript type for doco.${key} (${column.type}): add one to scripts/db-types/render.ts`);
    base = scalar === 'Json' && column.jsonKind === 'array' ? 'JsonArray' : scalar;
  }
  const columnTyped = base in JSON_TYPES || base.startsWith('ColumnType<');
  if (columnTyped) uses.add('ColumnType');
  if (base in JSON_TYPES) uses.add(base);
  if (column.array) base = `${base}[]`;
  if (column.nullable) base = `${base} | null`;
  const defaulted = column.defaulted || FILLED_BY_TRIGGER.includes(key);
  const wrapper = column.generatedAlways ? 'GeneratedAlways' : defaulted ? (columnTyped ? 'Defaulted' : 'Generated') : undefined;
  if (!wrapper) return base;
  uses.add(wrapper);
  return `${wrapper}<${base}>`;
}

/** The whole of src/db/schema.ts. */
export function renderSchema(tables: CatalogTable[]): string {
  const { values, byColumn } = namedUnions(tables);
  for (const key of [...FILLED_BY_TRIGGER, ...Object.keys(COLUMN_TYPES)]) findColumn(tables, key);
  const uses = new Set<string>();
  const interfaces = tables.map((t) => {
    const lines = t.columns.map((c) => `  ${c.name}: ${columnType(t, c, byColumn.get(c), uses)};`);
    return `export interface ${interfaceName(t.name)} {\n${lines.join('\n')}\n}`;
  });
  const kysely = ['ColumnType', 'Generated', 'GeneratedAlways'].filter((n) => uses.has(n));
  const unions = NAMED_UNIONS.map((u) =>
    [
      `/** The values of doco.${u.from}. */`,
      `export const ${u.values} = [${values.get(u)!.map(quote).join(', ')}] as const;`,
      `export type ${u.type} = (typeof ${u.values})[number];`,
    ].join('\n'),
  );
  const database = `export interface Database {\n${tables.map((t) => `  'doco.${t.name}': ${interfaceName(t.name)};`).join('\n')}\n}`;
  return (
    [
      [HEADER, `import type { ${kysely.join(', ')} } from 'kysely';`, ...IMPORTS].join('\n'),
      REEXPORTS.join('\n'),
      [
        ...Object.entries(JSON_TYPES)
          .filter(([name]) => uses.has(name))
          .map(([, text]) => text),
        ...(uses.has('Defaulted') ? [DEFAULTED] : []),
      ].join('\n'),
      ...unions,
      ...interfaces,
      database,
    ]
      .filter((part) => part !== '')
      .join('\n\n') + '\n'
  );
}
