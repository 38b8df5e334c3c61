/** Which nodes a draft adds, removes and changes against the live version. */
import type { Definition, NodeDef } from './model.ts'

export type Change = 'added' | 'removed' | 'changed'
export interface Diff {
  added: string[]
  removed: string[]
  changed: string[]
}

/** A node as compared: the type version the server pins on saving counts only when the draft names one. */
function comparable(node: NodeDef, other: NodeDef): string {
  const { typeVersion, ...rest } = node
  return JSON.stringify(other.typeVersion === undefined ? rest : { ...rest, typeVersion })
}

export function diffOf(draft: Definition, live: Definition): Diff {
  const ids = Object.keys(draft.nodes)
  const before = live.nodes ?? {}
  return {
    added: ids.filter((id) => !before[id]),
    removed: Object.keys(before).filter((id) => !draft.nodes[id]),
    changed: ids.filter(
      (id) => before[id] && comparable(before[id], draft.nodes[id]) !== comparable(draft.nodes[id], before[id]),
    ),
  }
}

export const isEmpty = (d: Diff) => d.added.length + d.removed.length + d.changed.length === 0
