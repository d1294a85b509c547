// Types for lint/layers.js (plain JavaScript, so eslint.config.js can load it without a build).
import type { Linter } from 'eslint';

export type LayerEntry = string | { module: string; layers: LayerEntry[][] };
export const LAYERS: LayerEntry[][];
export function layerViolation(from: string, to: string, layers?: LayerEntry[][]): string | undefined;
export function resolveImport(fromFile: string, specifier: string): string | undefined;
export const layersConfig: Linter.Config;
