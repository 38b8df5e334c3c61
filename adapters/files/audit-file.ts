/**
 * The JSON-lines file audit records are shipped to (AUTOMATON_AUDIT_FILE), with its cursor: the
 * last sequence written per organization, kept in `<file>.cursor`. Lines are appended and synced
 * before the cursor moves; after a crash, the lines written past the cursor are read back (a
 * partial last line is cut), so each record is in the file once, in order per organization.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs'

export interface AuditLine {
  organizationId: string
  seq: number
  text: string
}

export interface AuditFile {
  /** The last sequence in the file for an organization (0: none). */
  position(organizationId: string): number
  append(lines: readonly AuditLine[]): void
}

interface Cursor {
  offset: number
  seqs: Record<string, number>
}

function readCursor(path: string): Cursor {
  if (!existsSync(path)) return { offset: 0, seqs: {} }
  return JSON.parse(readFileSync(path, 'utf8')) as Cursor
}

function saveCursor(path: string, cursor: Cursor): void {
  const temp = `${path}.tmp`
  writeFileSync(temp, JSON.stringify(cursor))
  const fd = openSync(temp, 'r')
  fsyncSync(fd)
  closeSync(fd)
  renameSync(temp, path)
}

/** Reads the lines past the cursor's offset (written before a crash) into the cursor; cuts a partial line. */
function recover(fd: number, cursor: Cursor): void {
  const size = fstatSync(fd).size
  if (size <= cursor.offset) return
  const tail = Buffer.alloc(size - cursor.offset)
  readSync(fd, tail, 0, tail.length, cursor.offset)
  const text = tail.toString('utf8')
  const end = text.lastIndexOf('\n') + 1
  for (const line of text.slice(0, end).split('\n')) {
    if (!line) continue
    const record = JSON.parse(line) as { organizationId: string; seq: number }
    cursor.seqs[record.organizationId] = record.seq
  }
  cursor.offset += Buffer.byteLength(text.slice(0, end))
  if (cursor.offset < size) ftruncateSync(fd, cursor.offset)
}

export function openAuditFile(path: string): AuditFile {
  const cursorPath = `${path}.cursor`
  const cursor = readCursor(cursorPath)
  const fd = openSync(path, 'a+')
  recover(fd, cursor)
  fsyncSync(fd)
  saveCursor(cursorPath, cursor)
  return {
    position: (organizationId) => cursor.seqs[organizationId] ?? 0,
    append(lines) {
      if (lines.length === 0) return
      const bytes = Buffer.from(lines.map((l) => `${l.text}\n`).join(''))
      writeSync(fd, bytes)
      fsyncSync(fd)
      cursor.offset += bytes.length
      for (const l of lines) cursor.seqs[l.organizationId] = l.seq
      saveCursor(cursorPath, cursor)
    },
  }
}
