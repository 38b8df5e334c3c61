/** Timestamps are stored as integer milliseconds and shown as RFC 3339 UTC with milliseconds. */
export function iso(ms: number): string
export function iso(ms: number | null | undefined): string | null
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString()
}

/** Parses an RFC 3339 timestamp; NaN when it is not one. */
export function parseIso(value: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return Number.NaN
  return Date.parse(value)
}
