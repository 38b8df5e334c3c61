/**
 * The masks of organizations' secret values: the secret fields of every connector of the
 * organization, the sensitive prop values of its forked workflows, and the numbers and CVCs of
 * its stored agent cards, opened with the secret box and masked by value (see
 * security/value-mask.ts and security/card-mask.ts).
 *
 * A mask is kept per organization and read again when it is older than `freshMs` and the
 * organization's connectors, props or cards changed since (small queries tell); a mask in use is
 * read again from half that age on, in the background, so that runs do not wait for it. A
 * connector or card written through this process forgets the mask at once (`forget`); another
 * process sees the change within `freshMs`. A deleted card's details are erased, so from then on
 * its number is no longer known, and no longer masked.
 */
import { createFreshReads } from '../fresh-reads.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import type { StoredCard } from '../security/card-mask.ts'
import { createValueMask, type SecretMasks, type ValueMask } from '../security/value-mask.ts'
import { cards as agentCards } from '../store/cards.ts'
import { connectors } from '../store/connectors.ts'
import { workflows } from '../store/workflows.ts'

interface Entry {
  mask: ValueMask
  /** Which connectors, at which update, the mask was made of. */
  version: string
}

export interface SecretMaskService extends SecretMasks {
  /** Forgets an organization's mask (its connectors changed here). */
  forget(organizationId: string): void
}

export function createSecretMasks(deps: {
  store: Store
  secretBox: SecretBox
  clock: Clock
  logger: Logger
  freshMs?: number
}): SecretMaskService {
  async function load(organizationId: string, known: Entry | undefined): Promise<Entry> {
    const rows = await connectors.sealedStamps(deps.store, organizationId)
    // The sensitive prop values of forked workflows are masked like connector secrets.
    const props = await workflows.sealedPropsOf(deps.store, organizationId)
    // Cards do not change: one is added or deleted.
    const cards = await agentCards.sealedOf(deps.store, organizationId)
    const version = [
      ...rows.map((r) => `${r.id}:${r.updated_at}`),
      ...props.map((r) => `${r.id}:${r.sealed_props.slice(-16)}`),
      ...cards.map((r) => r.id),
    ].join(',')
    if (known && known.version === version) return known
    const sealed = await connectors.sealedSecrets(deps.store, organizationId)
    const secrets: string[] = []
    for (const row of sealed) {
      try {
        secrets.push(
          ...Object.values(JSON.parse(await deps.secretBox.open(row.sealed_secrets)) as Record<string, string>),
        )
      } catch (error) {
        deps.logger.error("could not open a connector's secrets to mask them", { organizationId, error: String(error) })
      }
    }
    for (const row of props) {
      try {
        for (const value of Object.values(
          JSON.parse(await deps.secretBox.open(row.sealed_props)) as Record<string, unknown>,
        )) {
          if (typeof value === 'string') secrets.push(value)
          else if (value !== null && typeof value === 'object')
            secrets.push(
              ...Object.values(value)
                .flat()
                .filter((v): v is string => typeof v === 'string'),
            )
          else if (value !== null && value !== undefined) secrets.push(String(value))
        }
      } catch (error) {
        deps.logger.error("could not open a workflow's sensitive props to mask them", {
          organizationId,
          workflowId: row.id,
          error: String(error),
        })
      }
    }
    return { mask: createValueMask(secrets, { cards: await openCards(organizationId, cards) }), version }
  }

  async function openCards(
    organizationId: string,
    sealed: ReadonlyArray<{ id: string; sealed_details: string }>,
  ): Promise<StoredCard[]> {
    const cards: StoredCard[] = []
    for (const row of sealed) {
      try {
        const details = JSON.parse(await deps.secretBox.open(row.sealed_details)) as { number: string; cvc: string }
        cards.push({ number: details.number, cvc: details.cvc })
      } catch (error) {
        deps.logger.error('could not open an agent card to mask it', {
          organizationId,
          cardId: row.id,
          error: String(error),
        })
      }
    }
    return cards
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
