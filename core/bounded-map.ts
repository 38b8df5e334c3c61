/**
 * A Map that holds at most `max` entries: setting one more forgets the oldest. For the caches of
 * things derived from stored rows (parsed versions, compiled machines, schedules, API keys),
 * where a miss costs a recomputation and never a wrong answer.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super()
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.max) this.delete(this.keys().next().value as K)
    return super.set(key, value)
  }
}
