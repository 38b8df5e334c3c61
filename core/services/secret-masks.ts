/**
 * The masks of organizations' secret values: the secret fields of every connector of the
 * organization and the sensitive prop values of its forked workflows, opened with the secret box
 * and masked by value (see security/value-mask.ts).
 *
 * A mask is kept per organization and read again when it is older than `freshMs` and the
 * organization's connectors changed since (one small query tells); a mask in use is read again
 * from half that age on, in the background, so that runs do not wait for it. A connector written through
 * this process forgets the mask at once (`forget`); another process sees the change within
 * `freshMs`.
 */
import { createFreshReads } from '../fresh-reads.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { createValueMask, type SecretMasks, type ValueMask } from '../security/value-mask.ts'

interface Entry {
  mask: ValueMask
  /** Which connectors, at which update, the mask was made of. */
  version: string
}

export interface SecretMaskService extends SecretMasks {
  /** Forgets an organization's mask (its connectors changed here). */
  forget(organizationId: string): void
}

export function createSecretMasks(deps: { store: Store; secretBox: SecretBox; clock: Clock; logger: Logger; freshMs?: number }): SecretMaskService {
  async function load(organizationId: string, known: Entry | undefined): Promise<Entry> {
    const rows = await deps.store.all<{ id: string; updated_at: number }>(
      'SELECT id, updated_at FROM connectors WHERE organization_id = $1 AND sealed_secrets IS NOT NULL ORDER BY id', [organizationId],
    )
    // The sensitive prop values of forked workflows are masked like connector secrets.
    const props = await deps.store.all<{ id: string; sealed_props: string }>(
      'SELECT id, sealed_props FROM workflows WHERE organization_id = $1 AND sealed_props IS NOT NULL ORDER BY id', [organizationId],
    )
    const version = [...rows.map((r) => `${r.id}:${r.updated_at}`), ...props.map((r) => `${r.id}:${r.sealed_props.slice(-16)}`)].join(',')
    if (known && known.version === version) return known
    const sealed = await deps.store.all<{ sealed_secrets: string }>(
      'SELECT sealed_secrets FROM connectors WHERE organization_id = $1 AND sealed_secrets IS NOT NULL', [organizationId],
    )
    const secrets: string[] = []
    for (const row of sealed) {
      try {
        secrets.push(...Object.values(JSON.parse(await deps.secretBox.open(row.sealed_secrets)) as Record<string, string>))
      } catch (error) {
        deps.logger.error('could not open a connector\'s secrets to mask them', { organizationId, error: String(error) })
      }
    }
    for (const row of props) {
      try {
        for (const value of Object.values(JSON.parse(await deps.secretBox.open(row.sealed_props)) as Record<string, unknown>)) {
          if (typeof value === 'string') secrets.push(value)
          else if (value !== null && typeof value === 'object') secrets.push(...Object.values(value).flat().filter((v): v is string => typeof v === 'string'))
          else if (value !== null && value !== undefined) secrets.push(String(value))
        }
      } catch (error) {
        deps.logger.error('could not open a workflow\'s sensitive props to mask them', { organizationId, workflowId: row.id, error: String(error) })
      }
    }
    return { mask: createValueMask(secrets), version }
  }

  const reads = createFreshReads({ clock: deps.clock, freshMs: deps.freshMs ?? 1000, load })
  return {
    peek: (organizationId) => reads.peek(organizationId)?.mask,
    of(organizationId) {
      const fresh = reads.peek(organizationId)
      return fresh ? Promise.resolve(fresh.mask) : reads.read(organizationId).then((entry) => entry.mask)
    },
    forget: (organizationId) => reads.forget(organizationId),
  }
}
