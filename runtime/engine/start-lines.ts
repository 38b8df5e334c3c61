/**
 * The lines of the executor's start queue (start-queue.ts): an organization's runs, its workflows
 * in turn, each workflow's runs best ranked first. A run's rank is the time it started waiting
 * less one second per step of priority: every run gains one step per second waited, and since all
 * gain alike the order is fixed when it is queued. Empty lines are kept for reuse (a few dozen), so
 * that a process starting runs one at a time makes no new line per run.
 */
import type { Queued } from './start-queue.ts'

/** How many empty lines of each kind are kept for reuse. */
const SPARE_LINES = 64

/** A binary heap of runs, the lowest rank first, then the first queued (parallel arrays: nothing allocated per run). */
export class RankedLine {
  private readonly items: Queued[] = []
  private readonly ranks: number[] = []
  private readonly seqs: number[] = []
  private seq = 0

  get length(): number {
    return this.items.length
  }

  push(item: Queued, rank: number): void {
    const { items, ranks, seqs } = this
    const seq = this.seq++
    let i = items.length
    items.push(item)
    ranks.push(rank)
    seqs.push(seq)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!(rank < ranks[parent] || (rank === ranks[parent] && seq < seqs[parent]))) break
      this.move(parent, i)
      i = parent
    }
    this.put(i, item, rank, seq)
  }

  /** The best ranked run, out of the line (the line must not be empty). */
  shift(): Queued {
    const { items, ranks, seqs } = this
    const top = items[0]
    const item = items.pop()!
    const rank = ranks.pop()!
    const seq = seqs.pop()!
    const n = items.length
    if (n === 0) {
      this.seq = 0
      return top
    }
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const first = l + 1 < n && this.before(l + 1, l) ? l + 1 : l
      if (!(ranks[first] < rank || (ranks[first] === rank && seqs[first] < seq))) break
      this.move(first, i)
      i = first
    }
    this.put(i, item, rank, seq)
    return top
  }

  private before(i: number, j: number): boolean {
    const { ranks, seqs } = this
    return ranks[i] < ranks[j] || (ranks[i] === ranks[j] && seqs[i] < seqs[j])
  }

  private move(from: number, to: number): void {
    this.items[to] = this.items[from]
    this.ranks[to] = this.ranks[from]
    this.seqs[to] = this.seqs[from]
  }

  private put(at: number, item: Queued, rank: number, seq: number): void {
    this.items[at] = item
    this.ranks[at] = rank
    this.seqs[at] = seq
  }
}

/** Empty lines for reuse. */
const spareLines: RankedLine[] = []

/**
 * One organization's runs: its workflows with runs waiting take turns, one run each, first come
 * first served between them; each workflow's own line starts its best ranked run. Runs queued by
 * id only (no workflow known) share one line. The turns go round an array in place, so that taking
 * a run allocates nothing.
 */
export class OrganizationLane {
  private readonly lines = new Map<string, RankedLine>()
  /** The workflows with runs waiting, in the order of their turns; `at` is the next one's. */
  private readonly turns: string[] = []
  private at = 0
  length = 0

  push(item: Queued, rank: number): void {
    const workflow = item.workflowId ?? ''
    let line = this.lines.get(workflow)
    if (!line) {
      line = spareLines.pop() ?? new RankedLine()
      this.lines.set(workflow, line)
      this.turns.push(workflow)
    }
    line.push(item, rank)
    this.length++
  }

  /** The next workflow's best run (the lane must not be empty); then the workflow after it has its turn. */
  shift(): Queued {
    const { turns } = this
    const workflow = turns[this.at]
    const line = this.lines.get(workflow)!
    const item = line.shift()
    this.length--
    if (line.length > 0) this.at++
    else {
      this.lines.delete(workflow)
      if (spareLines.length < SPARE_LINES) spareLines.push(line)
      for (let i = this.at; i < turns.length - 1; i++) turns[i] = turns[i + 1]
      turns.length--
    }
    if (this.at >= turns.length) this.at = 0
    return item
  }
}

/** Empty lanes for reuse. */
const spareLanes: OrganizationLane[] = []

/** A lane for an organization that has none: a spare one, or a new one. */
export const takeLane = (): OrganizationLane => spareLanes.pop() ?? new OrganizationLane()

/** An organization's lane left empty: kept for the next that needs one. */
export function returnLane(lane: OrganizationLane): void {
  if (spareLanes.length < SPARE_LINES) spareLanes.push(lane)
}
