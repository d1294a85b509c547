// The shape of a template's policies (doco.templates.policies, jsonb), which the catalog cannot
// say: the generated row types (schema.ts) take it from here.
export type Policy =
  | { id: string; kind: 'required_fields'; node_types?: string[]; fields: string[] }
  | { id: string; kind: 'judge'; node_types?: string[]; text: string; action: 'warn' | 'block' };
