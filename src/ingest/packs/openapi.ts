// Renders a pack's OpenAPI document (3.x, or Swagger 2) as one Markdown document: an intro
// listing every operation, then a `## METHOD /path` section per operation and a
// `## Schema Name` section per component schema, so splitMarkdown cuts it like any doc.
// What it writes is bounded by the document's own size: a referenced schema's properties are
// listed once per operation and at most MAX_OPERATION_PROPERTIES of them, and the whole stops at
// MAX_RENDERED_CHARS. One schema of 2,000 properties referenced by 50 content types of 1,000
// operations (a 2.6 MB pack) rendered until the server ran out of memory, and again on each
// restart's pull (a hostile review).
import { lexMarkdownLines } from '../../text/markdown-lines.js';

type Json = Record<string, unknown>;

/** Property lines under one operation's request bodies: a schema's own section lists them all. */
export const MAX_OPERATION_PROPERTIES = 200;
/** The rendered document's length, at most: past it the rest is named, not written. */
export const MAX_RENDERED_CHARS = 4_000_000;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const obj = (x: unknown): Json | undefined => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Json) : undefined);
const str = (x: unknown): string | undefined => (typeof x === 'string' && x.trim() ? x.trim() : undefined);
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
/**
 * A name the document chose (a path, a schema, a title, a parameter, a tag…) on one line: with a
 * line break in it, a path key or a schema name started a section of its own (a hostile review).
 */
const named = (x: unknown): string => String(x).replace(/\s+/g, ' ').trim();

/**
 * Keeps free text from starting sections of its own or leaving a code fence open: headings in
 * a description are pushed below ### (they stay in the body), and an unclosed fence is closed
 * by a fence of its own kind (a ``` does not close a ~~~ or a ````).
 */
function prose(text: string | undefined): string[] {
  if (!text) return [];
  const { lines, headings, unclosedFence } = lexMarkdownLines(text);
  for (const h of headings) if (h.level <= 3) lines[h.line] = lines[h.line]!.replace(/^ {0,3}#{1,3}/, '####');
  if (unclosedFence) lines.push(unclosedFence);
  return [lines.join('\n')];
}

const refName = (ref: string) => named(ref.split('/').pop() ?? ref);

/** A short type description: `Invoice`, `array of Invoice`, `string (date-time)`, `one of a, b`. */
export function describeType(schema: unknown): string {
  const s = obj(schema);
  if (!s) return 'any';
  if (typeof s.$ref === 'string') return refName(s.$ref);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((e) => named(JSON.stringify(e))).join(', ')}`;
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) return `${key === 'allOf' ? 'all of' : 'one of'} ${s[key].map(describeType).join(', ')}`;
  }
  const type = named(Array.isArray(s.type) ? s.type.join(' | ') : (str(s.type) ?? (s.properties ? 'object' : 'any')));
  if (type === 'array') return `array of ${describeType(s.items)}`;
  return str(s.format) ? `${type} (${named(s.format)})` : type;
}

type Resolve = (schema: unknown) => unknown;

/** Follows a local `$ref` (`#/components/schemas/Invoice`) to the schema it names. */
const resolver =
  (doc: Json): Resolve =>
  (schema) => {
    const ref = obj(schema)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
    return (
      ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => obj(at)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) ?? schema
    );
  };

/** One line per top-level property of an object schema (a referenced one included). */
function propertyLines(schema: unknown, indent = '', resolve: Resolve = (x) => x): string[] {
  const s = obj(resolve(schema));
  const props = obj(s?.properties);
  if (!s || !props) return [];
  const required = new Set(list(s.required).filter((r): r is string => typeof r === 'string'));
  return Object.entries(props).map(([name, p]) => {
    const desc = str(obj(p)?.description);
    return `${indent}- \`${named(name)}\` (${describeType(p)}${required.has(name) ? ', required' : ''})${desc ? `: ${desc.replace(/\s+/g, ' ')}` : ''}`;
  });
}

function parameterLines(params: unknown[]): string[] {
  const lines: string[] = [];
  for (const raw of params) {
    const p = obj(raw);
    if (!p) continue;
    if (typeof p.$ref === 'string') {
      lines.push(`- ${refName(p.$ref)}`);
      continue;
    }
    const type = describeType(p.schema ?? p);
    const desc = str(p.description);
    lines.push(
      `- \`${named(p.name ?? '?')}\` (${named(p.in ?? '?')}${p.required === true ? ', required' : ''}, ${type})${desc ? `: ${desc.replace(/\s+/g, ' ')}` : ''}`,
    );
  }
  return lines;
}

function contentTypes(content: unknown): { type: string; schema: unknown }[] {
  return Object.entries(obj(content) ?? {}).map(([type, media]) => ({ type: named(type), schema: obj(media)?.schema }));
}

function operationSection(method: string, route: string, op: Json, pathParams: unknown[], resolve: Resolve): string[] {
  const out = [`## ${method.toUpperCase()} ${route}`, ''];
  if (op.deprecated === true) out.push('Deprecated.', '');
  out.push(...prose(str(op.summary)), ...prose(str(op.description)));
  const facts = [
    str(op.operationId) && `Operation id: ${named(op.operationId)}.`,
    list(op.tags).length ? `Tags: ${list(op.tags).map(named).join(', ')}.` : undefined,
  ].filter(Boolean);
  if (facts.length) out.push(facts.join(' '));
  const params = [...pathParams, ...list(op.parameters)];
  const bodyParam = params.map(obj).find((p) => p?.in === 'body'); // Swagger 2
  const plain = parameterLines(params.filter((p) => obj(p)?.in !== 'body'));
  if (plain.length) out.push('', 'Parameters:');
  for (const line of plain) out.push(line);
  const body = obj(op.requestBody);
  const bodies = body ? contentTypes(body.content) : bodyParam ? [{ type: 'body', schema: bodyParam.schema }] : [];
  // Each schema's properties once (several content types usually share one), and a bounded number.
  const listed = new Set<unknown>();
  let left = MAX_OPERATION_PROPERTIES;
  for (const { type, schema } of bodies) {
    out.push(
      '',
      `Request body (${type}${body?.required === true || bodyParam?.required === true ? ', required' : ''}): ${describeType(schema)}`,
    );
    const resolved = resolve(schema);
    if (listed.has(resolved) || left <= 0) continue;
    listed.add(resolved);
    const lines = propertyLines(resolved, '  ');
    for (const line of lines.slice(0, left)) out.push(line);
    if (lines.length > left) out.push(`  - … and ${lines.length - left} more (its schema's section lists them all)`);
    left -= lines.length;
  }
  const responses = Object.entries(obj(op.responses) ?? {});
  if (responses.length) out.push('', 'Responses:');
  for (const [status, raw] of responses) {
    const r = obj(raw) ?? {};
    const shapes = contentTypes(r.content).map((c) => `${c.type}: ${describeType(c.schema)}`);
    if (r.schema) shapes.push(describeType(r.schema));
    const desc = str(r.description)?.replace(/\s+/g, ' ');
    out.push(`- ${named(status)}${shapes.length ? ` (${shapes.join('; ')})` : ''}${desc ? `: ${desc}` : ''}`);
  }
  return out;
}

interface Operation {
  method: string;
  route: string;
  op: Json;
  pathParams: unknown[];
}

function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [route, raw] of Object.entries(obj(doc.paths) ?? {})) {
    const item = obj(raw) ?? {};
    for (const method of METHODS) {
      const op = obj(item[method]);
      if (op) ops.push({ method, route: named(route), op, pathParams: list(item.parameters) });
    }
  }
  return ops;
}

/** Lines with a running length: adding stops, with a line saying so, once MAX_RENDERED_CHARS is passed. */
class BoundedLines {
  readonly lines: string[] = [];
  private chars = 0;
  full = false;
  add(...lines: string[]): void {
    this.addAll(lines);
  }
  /** Without spreading into a call: an operation may bring more lines than a call takes arguments. */
  addAll(lines: string[]): void {
    for (const line of lines) {
      if (this.full) return;
      this.lines.push(line);
      this.chars += line.length + 1;
      if (this.chars > MAX_RENDERED_CHARS) {
        this.full = true;
        this.lines.push('', `(The rest of this API description is left out: it renders past ${MAX_RENDERED_CHARS} characters.)`);
      }
    }
  }
}

/** The Markdown text of the `{code}-openapi` document. */
export function renderOpenApi(doc: Json): string {
  const info = obj(doc.info) ?? {};
  const version = str(doc.openapi) ?? str(doc.swagger);
  const ops = operationsOf(doc);
  const out = new BoundedLines();
  out.add(`# ${named(str(info.title) ?? 'API')}${str(info.version) ? ` ${named(info.version)}` : ''}`, '');
  if (version) out.add(`OpenAPI ${version} description of this service's HTTP API.`, '');
  out.addAll(prose(str(info.description)));
  const servers = list(doc.servers)
    .map((s) => str(obj(s)?.url))
    .filter((u): u is string => !!u)
    .map(named);
  if (servers.length) out.add('', `Servers: ${servers.join(', ')}`);
  if (ops.length) {
    out.add('', 'Operations:');
    for (const o of ops)
      out.add(`- ${o.method.toUpperCase()} ${o.route}${str(o.op.summary) ? ` — ${str(o.op.summary)!.replace(/\s+/g, ' ')}` : ''}`);
  }
  const resolve = resolver(doc);
  for (const o of ops) {
    if (out.full) break;
    out.add('');
    out.addAll(operationSection(o.method, o.route, o.op, o.pathParams, resolve));
  }
  const schemas = obj(obj(doc.components)?.schemas) ?? obj(doc.definitions) ?? {};
  for (const [name, schema] of Object.entries(schemas)) {
    if (out.full) break;
    const s = obj(schema) ?? {};
    out.add('', `## Schema ${named(name)}`, '');
    out.addAll(prose(str(s.description)));
    out.add(`Type: ${describeType(s)}.`);
    out.addAll(propertyLines(s));
  }
  return `${out.lines.join('\n').trim()}\n`;
}
