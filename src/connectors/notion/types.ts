// The parts of Notion's objects the connector reads (docs/connectors.md, Notion).

export interface NotionList<T> {
  results: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface NotionRichText {
  plain_text: string;
  href?: string | null;
  annotations?: { bold?: boolean; italic?: boolean; strikethrough?: boolean; code?: boolean };
}

export interface NotionParent {
  type: string;
  [key: string]: unknown;
}

export interface NotionPage {
  object: 'page';
  id: string;
  url: string;
  last_edited_time: string;
  archived?: boolean;
  /** Notion-Version 2026-03-11 renames `archived` to this; either retires the page. */
  in_trash?: boolean;
  parent?: NotionParent;
  properties?: Record<string, { type: string; title?: NotionRichText[] }>;
}

/** A block; its content sits under the key named by its type. `children` is filled in by us. */
export interface NotionBlock {
  object?: 'block';
  id: string;
  type: string;
  has_children?: boolean;
  children?: NotionBlock[];
  [type: string]: unknown;
}
