/**
 * The audit chain's link: an HMAC over a record's content and the previous record's hash. The
 * key is the installation's audit key, kept sealed by the master key (audit-key.ts): someone
 * with the database alone can neither forge a record nor re-chain the ones after an edit.
 */
import type { AuditRow } from '../store/audit-events.ts'

const encoder = new TextEncoder()

/** The text a record's hash covers: every field but the hash, then the previous hash. */
export function linkText(row: Omit<AuditRow, 'hash'>, previousHash: string): string {
  return JSON.stringify([
    row.id,
    row.organization_id,
    Number(row.seq),
    Number(row.at),
    row.actor_kind,
    row.actor_id,
    row.actor_name,
    row.operation,
    row.resource_type,
    row.resource_id,
    row.outcome,
    row.address,
    row.user_agent,
    row.details,
    previousHash,
  ])
}

export async function linkHash(key: CryptoKey, row: Omit<AuditRow, 'hash'>, previousHash: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(linkText(row, previousHash)))
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, '0')).join('')
}

/** What verification found: intact, or the first record whose link does not hold. */
export interface ChainReport {
  organizationId: string
  records: number
  /** The sequence verification started after (the pruning checkpoint; 0 when none). */
  from: number
  broken: { seq: number; id: string | null; reason: string } | null
}

/** Checks one organization's records in order, from the checkpoint (seq, hash) on. */
export async function verifyRows(
  key: CryptoKey,
  organizationId: string,
  checkpoint: { seq: number; hash: string },
  pages: AsyncIterable<AuditRow[]>,
  head: { seq: number; hash: string },
): Promise<ChainReport> {
  let previous = checkpoint.hash
  let expected = checkpoint.seq + 1
  let records = 0
  const report = (broken: ChainReport['broken']): ChainReport => ({
    organizationId,
    records,
    from: checkpoint.seq,
    broken,
  })
  for await (const rows of pages) {
    for (const row of rows) {
      if (Number(row.seq) !== expected) return report({ seq: expected, id: null, reason: 'record missing' })
      const { hash, ...content } = row
      if ((await linkHash(key, content, previous)) !== hash)
        return report({ seq: expected, id: row.id, reason: 'hash does not match the content and the previous record' })
      previous = hash
      expected++
      records++
    }
  }
  if (expected - 1 !== head.seq || previous !== head.hash)
    return report({ seq: expected, id: null, reason: 'the chain ends before its head: records missing' })
  return report(null)
}
