// A Drive file as the record it becomes (docs/connectors.md): Google Docs (exported as Markdown) and
// .md/.txt files; title = the file's name, prose = a line naming its URL, then its text;
// body.source_kind = "drive" with the pointer {file_id, url, mime_type}. Meta keeps the version
// read, the dedup key with the file id.
import type { RecordShape } from '../../graph/record-shapes.js';
import type { ItemContent } from '../items.js';
import type { DriveFile } from './client.js';

export const GOOGLE_DOC = 'application/vnd.google-apps.document';
export const FOLDER = 'application/vnd.google-apps.folder';
const TEXT_TYPES = new Set(['text/markdown', 'text/x-markdown', 'text/plain']);
const TEXT_NAME = /\.(md|markdown|txt)$/i;

export type FileKind = 'doc' | 'text' | 'folder' | 'other';

export function fileKind(f: DriveFile): FileKind {
  if (f.mimeType === GOOGLE_DOC) return 'doc';
  if (f.mimeType === FOLDER) return 'folder';
  // A .md file is often stored as application/octet-stream: its name says what it is.
  if (TEXT_TYPES.has(f.mimeType) || (TEXT_NAME.test(f.name) && !f.mimeType.startsWith('application/vnd.google-apps.'))) return 'text';
  return 'other';
}

export const fileUrl = (f: DriveFile) =>
  f.webViewLink ??
  (f.mimeType === GOOGLE_DOC ? `https://docs.google.com/document/d/${f.id}/edit` : `https://drive.google.com/file/d/${f.id}/view`);

export function fileRecord(f: DriveFile, text: string): ItemContent {
  const url = fileUrl(f);
  return {
    externalId: f.id,
    title: f.name,
    prose: [
      `Google Drive file ${url}`,
      text
        .replace(/^\uFEFF/, '')
        .replace(/\r\n/g, '\n')
        .trim(),
    ]
      .filter(Boolean)
      .join('\n\n'),
    body: { source_kind: 'drive', shape: 'driveFile' satisfies RecordShape, pointer: { file_id: f.id, url, mime_type: f.mimeType } },
    meta: { version: f.version ?? null, parents: f.parents ?? [] },
    ...(f.modifiedTime ? { remoteUpdatedAt: f.modifiedTime } : {}),
  };
}
