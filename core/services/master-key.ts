/**
 * Master-key rotation: re-seals every value of SEALED_COLUMNS under a new key, with no moment
 * in which a secret cannot be read.
 *
 * - `oneTransaction` (SQLite): the new values are computed first, then written in one
 *   transaction together with the switch of the sealing key; if a value changed meanwhile, the
 *   whole change is computed again.
 * - batches (Postgres): the sealing key switches first (so every process seals new secrets with
 *   the new key from then on), then the values are re-sealed a batch at a time. Every process
 *   holds both keys during the change (AUTOMATON_MASTER_KEY_PREVIOUS, or the data dir's
 *   `master.key.next`), so each value opens before, during and after its batch.
 */
import type { Clock } from '../ports/clock.ts'
import type { SecretBox } from '../ports/secret-box.ts'
import type { Store } from '../ports/store.ts'
import { createSecretBox, masterKeyId } from '../security/secret-box.ts'
import { installationSettings, SEALING_KEY } from '../store/installation-settings.ts'
import { SEALED_COLUMNS, type SealedColumn, sealedValues } from '../store/sealed-columns.ts'

export interface RotationDeps {
  store: Store
  clock: Clock
  /** A box that opens every value stored now (the old key and the new one). */
  reader: SecretBox
  columns?: readonly SealedColumn[]
  batchSize?: number
}

interface Change {
  column: SealedColumn
  key: string
  from: string
  to: string
}

const MAX_ATTEMPTS = 5

export async function rotateMasterKey(
  deps: RotationDeps,
  target: Uint8Array,
  options: { oneTransaction: boolean },
): Promise<{ keyId: string; resealed: number }> {
  const columns = deps.columns ?? SEALED_COLUMNS
  const batchSize = deps.batchSize ?? 200
  const targetBox = await createSecretBox(target)
  const keyId = await masterKeyId(target)
  const switchSealing = (tx: Parameters<Parameters<Store['write']>[0]>[0]) =>
    installationSettings.set(tx, SEALING_KEY, keyId, deps.clock.now())

  /** The changes that re-seal `rows` under the target key; values already under it stay. */
  async function changesOf(column: SealedColumn, rows: Array<{ k: string; v: string }>): Promise<Change[]> {
    const out: Change[] = []
    for (const { k, v } of rows) {
      if (
        await targetBox.open(v).then(
          () => true,
          () => false,
        )
      )
        continue
      out.push({ column, key: k, from: v, to: await targetBox.seal(await deps.reader.open(v)) })
    }
    return out
  }

  /** Writes changes only over the values they were computed from; returns how many were still there. */
  async function apply(tx: Parameters<Parameters<Store['write']>[0]>[0], changes: Change[]): Promise<number> {
    let applied = 0
    for (const c of changes) {
      applied += await sealedValues.replace(tx, c.column, c.key, c.from, c.to)
    }
    return applied
  }

  const select = (column: SealedColumn, after: string | null, limit: number | null) =>
    sealedValues.page(deps.store, column, after, limit)

  if (options.oneTransaction) {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const changes: Change[] = []
      for (const column of columns) changes.push(...(await changesOf(column, await select(column, null, null))))
      const done = await deps.store
        .write(async (tx) => {
          if ((await apply(tx, changes)) !== changes.length) throw new ChangedMeanwhile()
          await switchSealing(tx)
          return true
        })
        .catch((error) => {
          if (error instanceof ChangedMeanwhile) return false
          throw error
        })
      if (done) return { keyId, resealed: changes.length }
    }
    throw new Error('secrets kept changing while they were re-sealed; run the rotation again')
  }

  await deps.store.write(switchSealing)
  let resealed = 0
  // A value another process wrote between our read and our update was sealed with the new key
  // already (the switch came first), so a pass that changes nothing means the work is done.
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    let pending = 0
    for (const column of columns) {
      let after: string | null = null
      for (;;) {
        const rows = await select(column, after, batchSize)
        if (rows.length === 0) break
        after = rows[rows.length - 1].k
        const changes = await changesOf(column, rows)
        pending += changes.length
        if (changes.length > 0) resealed += await deps.store.write((tx) => apply(tx, changes))
      }
    }
    if (pending === 0) return { keyId, resealed }
  }
  throw new Error('secrets kept changing while they were re-sealed; run the rotation again')
}

class ChangedMeanwhile extends Error {}
