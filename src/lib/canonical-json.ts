// Canonical JSON: one serialisation per value, for content hashes.
/**
 * JSON with object keys sorted (recursively), so equal values serialise identically whatever
 * order their keys were built in. Otherwise as JSON.stringify: `toJSON` is honoured (dates),
 * undefined and function members are dropped, non-finite numbers become null.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return sortKeys(json.call(value));
  if (Array.isArray(value)) return value.map(sortKeys);
  // No prototype: a key `__proto__` (JSON.parse makes it an own field) is then a field here too.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
